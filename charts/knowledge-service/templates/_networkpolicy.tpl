{{/* One egress rule from values (to, ports); nothing when it has no ports. */}}
{{- define "kb.egressRule" -}}
{{- if .ports -}}
- ports:
    {{- range .ports }}
    - {protocol: TCP, port: {{ . | int }}}
    {{- end }}
  {{- with .to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
{{- end -}}

{{/* What every pod of the install may reach: DNS (UDP and TCP) and the OpenTelemetry collector. */}}
{{- define "kb.commonEgress" -}}
{{- $egress := .Values.networkPolicy.egress -}}
{{- with $egress.dns.ports }}
- ports:
    {{- range . }}
    - {protocol: UDP, port: {{ . | int }}}
    - {protocol: TCP, port: {{ . | int }}}
    {{- end }}
  {{- with $egress.dns.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- /* also when no endpoint is set: a kustomize overlay may set it (k8s/components/otel-collector) */}}
{{- with include "kb.egressRule" $egress.collector }}
{{ . }}
{{- end }}
{{- end -}}

{{- define "kb.similarityEgress" -}}
- to:
    - podSelector:
        matchLabels:
          {{- include "kb.selectorLabels" (dict "root" . "name" "similarity") | nindent 10 }}
  ports: [{protocol: TCP, port: {{ .Values.components.similarity.port | int }}}]
{{- end -}}
