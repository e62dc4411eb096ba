{{/* The release's full name: the release name, prefixed with the chart name unless it already contains it. */}}
{{- define "ripple.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "ripple.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "ripple.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ripple.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "ripple.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "ripple.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The arguments of `ripple manager` shared by every manager Deployment (not the shard key). */}}
{{- define "ripple.managerArgs" -}}
- manager
- --agent-mode={{ .Values.manager.agentMode }}
{{- if .Values.agent.deploy }}
{{- if ne .Values.manager.agentMode "collect" }}
{{- fail "agent.deploy needs manager.agentMode=collect: the deployed agents leave their reports for the manager to collect" }}
{{- end }}
- --deploy-agent
- --agent-image={{ default (include "ripple.image" .) .Values.agent.image }}
{{- end }}
- --metrics-port={{ .Values.metrics.port }}
- --metrics-address=0.0.0.0
- --log-level={{ .Values.manager.logLevel }}
{{- with .Values.manager.leaderElection }}
{{- if .enabled }}
- --leader-elect
- --leader-elect-namespace={{ $.Release.Namespace }}
- --leader-elect-lease-duration={{ .leaseDuration }}
- --leader-elect-renew-deadline={{ .renewDeadline }}
- --leader-elect-retry-period={{ .retryPeriod }}
{{- end }}
{{- end }}
{{- range .Values.manager.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end -}}

{{/* The pod template of a manager: . is a dict with root (the chart context), component and args. */}}
{{- define "ripple.managerPod" -}}
{{- $root := .root -}}
metadata:
  labels:
    {{- include "ripple.selectorLabels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
  {{- with $root.Values.manager.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: {{ include "ripple.serviceAccountName" $root }}
  {{- with $root.Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- toYaml $root.Values.podSecurityContext | nindent 4 }}
  containers:
    - name: manager
      image: {{ include "ripple.image" $root }}
      imagePullPolicy: {{ $root.Values.image.pullPolicy }}
      args:
        {{- .args | nindent 8 }}
      ports:
        - name: metrics
          containerPort: {{ $root.Values.metrics.port }}
          protocol: TCP
      livenessProbe:
        httpGet:
          path: /healthz
          port: metrics
        initialDelaySeconds: 10
        periodSeconds: 20
      readinessProbe:
        httpGet:
          path: /healthz
          port: metrics
        periodSeconds: 10
      securityContext:
        {{- toYaml $root.Values.securityContext | nindent 8 }}
      resources:
        {{- toYaml $root.Values.manager.resources | nindent 8 }}
      volumeMounts:
        # Chart downloads and other scratch files: the root filesystem is read-only.
        - name: tmp
          mountPath: /tmp
  volumes:
    - name: tmp
      emptyDir: {}
  {{- with $root.Values.manager.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $root.Values.manager.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $root.Values.manager.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
