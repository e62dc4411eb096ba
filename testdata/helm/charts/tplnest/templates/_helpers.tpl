{{- define "tplnest.suffix" -}}
{{ .Chart.Name }}-{{ include "tplnest.inner" . }}
{{- end -}}
{{- define "tplnest.inner" -}}
{{ .Release.Revision }}
{{- end -}}
{{- define "tplnest.render" -}}
{{- if typeIs "string" .value }}{{ tpl .value .context }}{{ else }}{{ tpl (.value | toYaml) .context }}{{ end -}}
{{- end -}}
