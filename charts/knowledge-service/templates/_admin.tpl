{{/*
A copy-pasteable `kubectl run` of the admin CLI (`node /app/admin.js <args>`) in a one-off pod
of the knowledge image: the images have no shell, so `kubectl exec` cannot run it. The pod is
hardened like the install's pods and labelled component=admin, which the NetworkPolicies let
reach MongoDB and the similarity service. ctx: root, args (list), name (pod name suffix)
*/}}
{{- define "kb.adminRun" -}}
{{- $v := .root.Values -}}
{{- $pod := include "kb.name" (dict "root" .root "name" (printf "admin-%s" .name)) -}}
{{- $env := list (dict "name" "MONGODB_URI" "valueFrom" (dict "secretKeyRef" (dict "name" $v.mongodb.existingSecret "key" $v.mongodb.uriKey))) -}}
{{- $env = append $env (dict "name" "SIMILARITY_GRPC_ADDR" "value" (include "kb.address" (dict "root" .root "name" "similarity"))) -}}
{{- /* The system credential: reindex (and indexing during an import) calls the similarity service. */ -}}
{{- $env = append $env (dict "name" "SERVICE_SYSTEM_SECRET" "valueFrom" (dict "secretKeyRef" (dict "name" (include "kb.serviceAuthSecretName" .root) "key" $v.serviceAuth.systemKey))) -}}
{{- $container := dict "name" $pod "image" (include "kb.image" (dict "root" .root "name" "knowledge")) "command" (list "node" "/app/admin.js") "args" .args "env" $env "resources" $v.default.resources "securityContext" $v.default.securityContext -}}
{{- $spec := dict "automountServiceAccountToken" false "enableServiceLinks" false "restartPolicy" "Never" "securityContext" $v.default.podSecurityContext "containers" (list $container) -}}
{{- with $v.image.pullSecrets }}{{ $_ := set $spec "imagePullSecrets" (list) }}{{ range . }}{{ $_ := set $spec "imagePullSecrets" (append $spec.imagePullSecrets (dict "name" .)) }}{{ end }}{{ end -}}
kubectl run {{ $pod }} --namespace {{ .root.Release.Namespace }} --restart=Never --rm --attach --quiet \
    --image={{ include "kb.image" (dict "root" .root "name" "knowledge") }} \
    --labels=app.kubernetes.io/name={{ .root.Chart.Name }},app.kubernetes.io/instance={{ .root.Release.Name }},app.kubernetes.io/component=admin \
    --overrides='{{ dict "apiVersion" "v1" "spec" $spec | toJson }}'
{{- end -}}
