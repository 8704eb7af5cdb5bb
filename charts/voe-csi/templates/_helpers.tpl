{{- define "voe-csi.labels" -}}
app.kubernetes.io/name: voe-csi
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{- define "voe-csi.selector" -}}
app.kubernetes.io/name: voe-csi
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "voe-csi.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/* The plugin's socket directory on a node (the node-driver-registrar tells the kubelet the socket's path in it). */}}
{{- define "voe-csi.pluginDir" -}}
{{ .Values.kubeletDir }}/plugins/{{ .Values.driverName }}
{{- end }}

{{/*
voe csi as the controller (services "controller", the controller's host kubeconfig) or the node
plugin (services "node", the node's host kubeconfig) runs it, on the socket its sidecars share.
No --node-id: the node id is discovered from the node's MAC addresses against the host's VMIs,
with the Kubernetes node name as the fallback. Liveness is the process answering Probe (never the
host: a slow host must not restart the driver); whether the host answers is
voe_csi_host_reachable on the metrics port.
*/}}
{{- define "voe-csi.driverContainer" -}}
name: voe-csi
image: {{ include "voe-csi.image" .root }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
args:
  - csi
  - --endpoint
  - unix:///csi/csi.sock
  - --services
  - {{ .services }}
  - --kubeconfig
  - /etc/voe/host/kubeconfig
  - --driver-name
  - {{ .root.Values.driverName }}
  {{- if eq .services "node" }}
  - --node-name
  - $(NODE_NAME)
  {{- end }}
  {{- if eq .services "controller" }}
  {{- with .root.Values.storageClass.hostStorageClass }}
  - --host-storage-class
  - {{ . }}
  {{- end }}
  {{- if .root.Values.controller.nodeMonitor }}
  - --node-monitor
  {{- end }}
  {{- end }}
  - --metrics-port
  - "9810"
  - --log-level
  - {{ .logLevel }}
{{- if or (eq .services "node") .nodeOptions }}
env:
  {{- if eq .services "node" }}
  - name: NODE_NAME
    valueFrom:
      fieldRef:
        fieldPath: spec.nodeName
  {{- end }}
  {{- with .nodeOptions }}
  - name: NODE_OPTIONS
    value: {{ . | quote }}
  {{- end }}
{{- end }}
ports:
  - name: healthz
    containerPort: 9808
    protocol: TCP
  - name: metrics
    containerPort: 9810
    protocol: TCP
livenessProbe:
  httpGet:
    path: /healthz
    port: healthz
  initialDelaySeconds: 10
  periodSeconds: 10
  timeoutSeconds: 5
  failureThreshold: 5
{{- end }}

{{/* The pods' nodeSelector: Linux nodes, and the nodeSelector given. */}}
{{- define "voe-csi.nodeSelector" -}}
nodeSelector:
  {{- toYaml (merge (dict) . (dict "kubernetes.io/os" "linux")) | nindent 2 }}
{{- end }}

{{- define "voe-csi.sidecarSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end }}
