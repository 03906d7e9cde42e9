{{/* The tenant's host names: tenant.host, then tenant.extraHosts. */}}
{{- define "kb.hosts" -}}
{{- toYaml (concat (list .Values.tenant.host) .Values.tenant.extraHosts | compact | uniq) -}}
{{- end -}}

{{/* Paths routed to the gateway: the API, and the probes only when asked (they show what is down). */}}
{{- define "kb.routedPaths" -}}
- {path: /api/knowledge, exact: false}
{{- if .exposeProbes }}
- {path: /healthz, exact: true}
- {path: /readyz, exact: true}
{{- end }}
{{- end -}}
