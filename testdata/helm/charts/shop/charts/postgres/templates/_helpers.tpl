{{- define "postgres.fullname" -}}
{{ .Release.Name }}-{{ .Chart.Name }}
{{- end }}
