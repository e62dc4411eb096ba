{{- define "libonly.x" }}x{{ end }}
