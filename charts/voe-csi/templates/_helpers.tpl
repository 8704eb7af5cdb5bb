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
voe csi, as both the controller and the node plugin run it: the socket the sidecars share, this
node's name as the node id (the guest node's VM on the host), and the host's kubeconfig.
*/}}
{{- define "voe-csi.driverContainer" -}}
name: voe-csi
image: {{ include "voe-csi.image" .root }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
args:
  - csi
  - --endpoint
  - unix:///csi/csi.sock
  - --node-id
  - $(NODE_ID)
  - --kubeconfig
  - /etc/voe/host/kubeconfig
  - --driver-name
  - {{ .root.Values.driverName }}
  {{- with .root.Values.storageClass.hostStorageClass }}
  - --host-storage-class
  - {{ . }}
  {{- end }}
  - --log-level
  - {{ .logLevel }}
env:
  - name: NODE_ID
    valueFrom:
      fieldRef:
        fieldPath: spec.nodeName
ports:
  - name: healthz
    containerPort: 9808
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

{{- define "voe-csi.sidecarSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end }}
