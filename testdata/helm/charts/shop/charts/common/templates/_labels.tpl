{{- define "common.labels" -}}
common.example.org/chart: {{ .Chart.Name }}
common.example.org/release: {{ .Release.Name }}
{{- if .Values.global }}
common.example.org/region: {{ .Values.global.region | default "unknown" }}
{{- end }}
{{- end -}}

{{- define "common.tplvalues" -}}
{{- if typeIs "string" .value }}
{{- tpl .value .context }}
{{- else }}
{{- tpl (.value | toYaml) .context }}
{{- end }}
{{- end -}}
