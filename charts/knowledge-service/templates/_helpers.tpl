{{/*
Helpers shared by every template. A "component context" is a dict:
  root: the chart's root context ($), name: gateway|knowledge|catalog|similarity|…,
  c: that component's settings (values.default merged with values.components.<name>).
*/}}

{{/* The components, in the order they are rendered. */}}
{{- define "kb.componentNames" -}}
gateway knowledge catalog similarity
{{- end -}}

{{/* <release>-<suffix>: the name of every object of the install. */}}
{{- define "kb.name" -}}
{{- printf "%s-%s" .root.Release.Name .name -}}
{{- end -}}

{{/* The Secret holding the service-to-service secrets: the operator's, or the one the chart creates. */}}
{{- define "kb.serviceAuthSecretName" -}}
{{- .Values.serviceAuth.existingSecret | default (printf "%s-service-auth" .Release.Name) -}}
{{- end -}}

{{- define "kb.tenantName" -}}
{{- .Values.tenant.name | default .Values.tenant.id -}}
{{- end -}}

{{- define "kb.indexPrefix" -}}
{{- .Values.elasticsearch.indexPrefix | default (printf "kb-%s" .Values.tenant.id) -}}
{{- end -}}

{{- define "kb.imageTag" -}}
{{- .Values.image.tag | default .Chart.AppVersion -}}
{{- end -}}

{{/* <registry>/kb-<component>:<tag>. ctx: root, name */}}
{{- define "kb.image" -}}
{{- $v := .root.Values.image -}}
{{- $repo := printf "kb-%s" .name -}}
{{- if $v.registry }}{{ $repo = printf "%s/%s" ($v.registry | trimSuffix "/") $repo }}{{ end -}}
{{- printf "%s:%s" $repo (include "kb.imageTag" .root) -}}
{{- end -}}

{{/* Labels that pick one component's pods of this install (never change: selectors are immutable). ctx: root, name */}}
{{- define "kb.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* Every object's labels. ctx: root, name */}}
{{- define "kb.labels" -}}
{{ include "kb.selectorLabels" . }}
app.kubernetes.io/part-of: knowledge-service
app.kubernetes.io/version: {{ include "kb.imageTag" .root | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
kb.tenant/id: {{ .root.Values.tenant.id }}
{{- end -}}

{{/* <release>-<component>-headless: a back service's headless Service (every ready pod's address in DNS). ctx: root, name */}}
{{- define "kb.headlessName" -}}
{{- printf "%s-headless" (include "kb.name" .) -}}
{{- end -}}

{{/*
Where a back service is reached from the others: a dns:/// target naming its headless Service,
so a caller's channel resolves every ready pod and balances calls over them (a ClusterIP would
pin each long-lived HTTP/2 connection to one pod). Fully qualified with clusterDomain; without
it (clusterDomain ""), the pod's DNS search path finds the Service in its own namespace. On the
host's network (podman kube play on one machine) there are no Services: 127.0.0.1. ctx: root, name
*/}}
{{- define "kb.address" -}}
{{- $v := .root.Values -}}
{{- $port := (index $v.components .name).port -}}
{{- if $v.hostNetwork -}}
{{- printf "127.0.0.1:%v" $port -}}
{{- else if $v.clusterDomain -}}
{{- printf "dns:///%s.%s.svc.%s:%v" (include "kb.headlessName" .) .root.Release.Namespace $v.clusterDomain $port -}}
{{- else -}}
{{- printf "dns:///%s:%v" (include "kb.headlessName" .) $port -}}
{{- end -}}
{{- end -}}

{{/*
Deep merge of .src into .dst (a copy of values.default). Unlike sprig's merge it also takes
false, 0 and "" from the component (autoscaling.enabled: false over a default of true).
*/}}
{{- define "kb.merge" -}}
{{- $dst := .dst -}}
{{- range $key, $value := .src -}}
{{- if and (kindIs "map" $value) (kindIs "map" (get $dst $key)) -}}
{{- include "kb.merge" (dict "dst" (get $dst $key) "src" $value) -}}
{{- else -}}
{{- $_ := set $dst $key $value -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Checks the schema cannot express; each fails the render with the value to change. */}}
{{- define "kb.validate" -}}
{{- if gt (len .Release.Name) 43 -}}
{{- fail (printf "release name %q is longer than 43 characters: Service names are up to <release>-similarity-headless and must stay within 63" .Release.Name) -}}
{{- end -}}
{{- $seen := dict -}}
{{- range $name := splitList " " (include "kb.componentNames" .) -}}
{{- $c := index $.Values.components $name -}}
{{- if eq (int $c.port) (int $c.metricsPort) -}}
{{- fail (printf "components.%s: port and metricsPort are both %v" $name $c.port) -}}
{{- end -}}
{{- if $.Values.hostNetwork -}}
{{- range $key := list "port" "metricsPort" -}}
{{- $port := toString (index $c $key) -}}
{{- if hasKey $seen $port -}}
{{- fail (printf "hostNetwork: components.%s.%s %s is also %s; on the host's network every port must differ" $name $key $port (get $seen $port)) -}}
{{- end -}}
{{- $_ := set $seen $port (printf "components.%s.%s" $name $key) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and .Values.ingress.enabled .Values.httpRoute.enabled -}}
{{- fail "ingress.enabled and httpRoute.enabled are both true: route the tenant's host with one of them" -}}
{{- end -}}
{{- /* Bearer tokens never cross a network in clear text unless an operator says so in writing. */ -}}
{{- $tls := .Values.ingress.tls -}}
{{- if and .Values.ingress.enabled (not $tls.enabled) (not $tls.insecureAllowHttp) -}}
{{- fail "ingress.tls.enabled is false: the API (bearer tokens included) would be served over plain HTTP. Turn TLS on (ingress.tls.enabled: true, the certificate in ingress.tls.secretName), or accept plain HTTP explicitly with ingress.tls.insecureAllowHttp: true" -}}
{{- end -}}
{{- if and .Values.httpRoute.enabled (not .Values.httpRoute.insecureAllowHttp) -}}
{{- range $i, $ref := .Values.httpRoute.parentRefs -}}
{{- if not $ref.sectionName -}}
{{- fail (printf "httpRoute.parentRefs[%d] (%s) names no sectionName: the route would attach to every listener of that Gateway, plain-HTTP ones included. Name its HTTPS listener (sectionName), or accept plain HTTP explicitly with httpRoute.insecureAllowHttp: true" $i $ref.name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $auth := .Values.serviceAuth -}}
{{- if and $auth.acceptedServiceKey (has $auth.acceptedServiceKey (list $auth.serviceKey $auth.systemKey)) -}}
{{- fail (printf "serviceAuth.acceptedServiceKey %q is also serviceKey or systemKey: the previous secret needs a key of its own" $auth.acceptedServiceKey) -}}
{{- end -}}
{{- $o := .Values.observability -}}
{{- if and (or $o.alerts.enabled $o.dashboard.enabled) (not $o.metrics.enabled) -}}
{{- fail "observability.alerts.enabled or observability.dashboard.enabled needs observability.metrics.enabled: they read the services' metrics" -}}
{{- end -}}
{{- end -}}

{{/*
The label matchers that pick this install's series in Prometheus (no braces): the namespace and
the ServiceMonitor's job names (<release>-<component>), unless observability.alerts.seriesSelector.
*/}}
{{- define "kb.seriesSelector" -}}
{{- with .Values.observability.alerts.seriesSelector -}}
{{- . -}}
{{- else -}}
{{- printf "namespace=%q,job=~%q" .Release.Namespace (printf "%s-(%s)" .Release.Name (include "kb.componentNames" . | splitList " " | join "|")) -}}
{{- end -}}
{{- end -}}
