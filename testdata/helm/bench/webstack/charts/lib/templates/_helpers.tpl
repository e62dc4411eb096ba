{{- define "lib.fullname" -}}
{{- printf "%s-%s" .ctx.Release.Name .component | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "lib.selector" -}}
app.kubernetes.io/name: {{ .component }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
{{- end }}
{{- define "lib.labels" -}}
{{ include "lib.selector" . }}
helm.sh/chart: {{ printf "%s-%s" .ctx.Chart.Name .ctx.Chart.Version }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
{{- with .ctx.Values.global.labels }}
{{ toYaml . }}
{{- end }}
{{- end }}
