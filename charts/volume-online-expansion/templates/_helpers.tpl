{{/* Labels every object of the chart carries. */}}
{{- define "voe.labels" -}}
app.kubernetes.io/name: voe
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{/* The webhook pods' selector. */}}
{{- define "voe.webhook.selector" -}}
app.kubernetes.io/name: voe
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: webhook
{{- end }}

{{/* The image reference: by digest when one is given, else by tag (default: the chart's appVersion). */}}
{{- define "voe.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/* The KubeVirt CR's namespace and name (admission.kubevirt is namespace/name). */}}
{{- define "voe.kubevirtNamespace" -}}
{{ index (splitList "/" .Values.admission.kubevirt) 0 }}
{{- end }}
{{- define "voe.kubevirtName" -}}
{{ index (splitList "/" .Values.admission.kubevirt) 1 }}
{{- end }}

{{/* admission.longhorn as voe serve takes it: YAML 1.1 reads an unquoted on/off as true/false. */}}
{{- define "voe.longhorn" -}}
{{- $mode := .Values.admission.longhorn -}}
{{- if kindIs "bool" $mode -}}{{ ternary "on" "off" $mode }}{{- else -}}{{ $mode }}{{- end -}}
{{- end }}

{{/* Names the chart gives (one install per cluster: the webhook configuration is cluster-wide). */}}
{{- define "voe.webhookName" -}}voe-webhook{{- end }}
{{- define "voe.configurationName" -}}voe{{- end }}
{{- define "voe.caSecret" -}}voe-webhook-ca{{- end }}
{{- define "voe.tlsSecret" -}}voe-webhook-tls{{- end }}

{{/* Pod and container security settings of every voe container: non-root, read-only, no privileges. */}}
{{- define "voe.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end }}
{{- define "voe.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop: [ALL]
{{- end }}

{{/*
The rules of voe certs ensure: the two certificate Secrets of the release namespace (create cannot
be limited to names: RBAC only knows the name of an object that exists), and the caBundle of the
webhook configuration.
*/}}
{{- define "voe.certs.namespacedRules" -}}
- apiGroups: ['']
  resources: [secrets]
  resourceNames: [{{ include "voe.caSecret" . }}, {{ include "voe.tlsSecret" . }}]
  verbs: [get, update]
- apiGroups: ['']
  resources: [secrets]
  verbs: [create]
{{- end }}
{{- define "voe.certs.clusterRules" -}}
- apiGroups: [admissionregistration.k8s.io]
  resources: [validatingwebhookconfigurations]
  resourceNames: [{{ include "voe.configurationName" . }}]
  verbs: [get, patch]
{{- end }}

{{/* The arguments of voe certs ensure. */}}
{{- define "voe.certs.args" -}}
- certs
- ensure
- --namespace={{ .Release.Namespace }}
- --service={{ include "voe.webhookName" . }}
- --cluster-domain={{ .Values.clusterDomain }}
- --ca-secret={{ include "voe.caSecret" . }}
- --tls-secret={{ include "voe.tlsSecret" . }}
- --webhook-configuration={{ include "voe.configurationName" . }}
- --ca-validity-days={{ .Values.certificates.selfManaged.caValidityDays }}
- --cert-validity-days={{ .Values.certificates.selfManaged.certValidityDays }}
- --renew-before-days={{ .Values.certificates.selfManaged.renewBeforeDays }}
{{- end }}

{{/* The pod spec of a voe certs ensure run (the hook Job's and the CronJob's). */}}
{{- define "voe.certs.podSpec" -}}
serviceAccountName: {{ .serviceAccount }}
restartPolicy: OnFailure
automountServiceAccountToken: true
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- include "voe.podSecurityContext" .root | nindent 2 }}
{{- with .root.Values.webhook.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .root.Values.webhook.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
containers:
  - name: certs
    image: {{ include "voe.image" .root }}
    imagePullPolicy: {{ .root.Values.image.pullPolicy }}
    args:
      {{- include "voe.certs.args" .root | nindent 6 }}
    securityContext:
      {{- include "voe.containerSecurityContext" .root | nindent 6 }}
    resources:
      requests:
        cpu: 10m
        memory: 64Mi
      limits:
        memory: 192Mi
{{- end }}

{{/* The tracker's names and pods' selector. */}}
{{- define "voe.trackerName" -}}voe-tracker{{- end }}
{{- define "voe.disableHookName" -}}voe-disable-hook{{- end }}
{{- define "voe.leaseName" -}}voe-vmwatcher{{- end }}
{{- define "voe.tracker.selector" -}}
app.kubernetes.io/name: voe
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: tracker
{{- end }}

{{/* The flags voe watch, voe enable and voe disable share: the KubeVirt CR and the Setting. */}}
{{- define "voe.enablementArgs" -}}
- --kubevirt-namespace={{ include "voe.kubevirtNamespace" . }}
- --kubevirt-name={{ include "voe.kubevirtName" . }}
- --setting-name={{ .Values.admission.setting }}
{{- end }}

{{/* The namespaces the PVC and VM webhooks see (buildValidatingWebhookConfiguration's webhookNamespaceSelector). */}}
{{- define "voe.webhook.namespaceSelector" -}}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values:
      {{- toYaml (uniq (concat (list "kube-system" .Release.Namespace) .Values.webhook.excludedNamespaces)) | nindent 6 }}
  - key: storage.voe.dev/webhook
    operator: NotIn
    values: [disabled]
{{- end }}

{{/*
Whether an optional integration renders: "true" or "". enabled is true, false or auto; auto renders
when the cluster serves the kind (.Capabilities.APIVersions: discovery on install and upgrade,
--api-versions for helm template). true renders it, and when helm talks to a cluster (install,
upgrade, --dry-run=server: lookup answers) that does not serve the kind, fails saying so; offline
(helm lint, helm template) nothing is known of the cluster and it renders.
Called with (dict "enabled" <value> "api" "group/version/Kind" "key" "values.key" "root" $).
*/}}
{{- define "voe.optionalApi" -}}
{{- $served := .root.Capabilities.APIVersions.Has .api -}}
{{- if eq (toString .enabled) "auto" -}}
{{- if $served }}true{{ end -}}
{{- else if .enabled -}}
{{- if and (not $served) (lookup "v1" "Namespace" "" "kube-system") -}}
{{- fail (printf "%s is on, but the cluster does not serve %s: install its CRDs first, or set %s to auto or false" .key .api .key) -}}
{{- end -}}
true
{{- end -}}
{{- end }}
{{- define "voe.serviceMonitor" -}}
{{- include "voe.optionalApi" (dict "enabled" .Values.metrics.serviceMonitor.enabled "api" "monitoring.coreos.com/v1/ServiceMonitor" "key" "metrics.serviceMonitor.enabled" "root" .) -}}
{{- end }}
{{- define "voe.prometheusRule" -}}
{{- include "voe.optionalApi" (dict "enabled" .Values.metrics.prometheusRule.enabled "api" "monitoring.coreos.com/v1/PrometheusRule" "key" "metrics.prometheusRule.enabled" "root" .) -}}
{{- end }}
{{- define "voe.certManager" -}}
{{- if eq .Values.certificates.mode "cert-manager" -}}
{{- include "voe.optionalApi" (dict "enabled" true "api" "cert-manager.io/v1/Certificate" "key" "certificates.mode cert-manager" "root" .) -}}
{{- end -}}
{{- end }}
