{{- define "errors.deep" -}}
{{ required "deep.value is required inside a partial" .Values.deepValue }}
{{- end -}}
{{- define "errors.loop" -}}
{{ include "errors.loop" . }}
{{- end -}}
