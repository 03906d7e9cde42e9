{{/*
The objects of one component, each a named template taking a component context
(root, name, c: see _helpers.tpl). component.yaml renders them for every component.
*/}}

{{- define "kb.serviceAccount" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "kb.name" . }}
  labels:
    {{- include "kb.labels" . | nindent 4 }}
# The services never call the Kubernetes API.
automountServiceAccountToken: false
{{- end -}}

{{/* Environment only this component gets: its names, its metrics port, its Secrets, its overrides. */}}
{{- define "kb.componentEnv" -}}
{{- $v := .root.Values -}}
- name: OTEL_SERVICE_NAME
  value: kb-{{ .name }}
{{- if $v.observability.metrics.enabled }}
- name: OTEL_EXPORTER_PROMETHEUS_PORT
  value: {{ .c.metricsPort | int | quote }}
{{- end }}
{{- $auth := include "kb.serviceAuthSecretName" .root }}
- name: SERVICE_AUTH_SECRET
  valueFrom:
    secretKeyRef: {name: {{ $auth }}, key: {{ $v.serviceAuth.serviceKey }}}
{{- with $v.serviceAuth.acceptedServiceKey }}
{{- /* During a rotation: accepted when verifying, never used to sign. Optional: a key not (or no
       longer) in the Secret leaves the variable unset rather than the pod unable to start. */}}
- name: SERVICE_AUTH_SECRET_ACCEPTED
  valueFrom:
    secretKeyRef: {name: {{ $auth }}, key: {{ . }}, optional: true}
{{- end }}
{{- if and (ne .name "gateway") .c.grpcMaxConnectionAgeMs }}
- name: GRPC_MAX_CONNECTION_AGE_MS
  value: {{ .c.grpcMaxConnectionAgeMs | int | quote }}
{{- end }}
{{- if or (eq .name "knowledge") (eq .name "catalog") }}
- name: MONGODB_URI
  valueFrom:
    secretKeyRef: {name: {{ $v.mongodb.existingSecret }}, key: {{ $v.mongodb.uriKey }}}
{{- end }}
{{- $rp := $v.elasticsearch.readPath }}
{{- if and (eq .name "gateway") $rp.enabled }}
- name: ELASTICSEARCH_URL
  valueFrom:
    secretKeyRef: {name: {{ $rp.existingSecret | default $v.elasticsearch.existingSecret }}, key: {{ $rp.urlKey | default $v.elasticsearch.urlKey }}}
{{- end }}
{{- if eq .name "similarity" }}
- name: SERVICE_SYSTEM_SECRET
  valueFrom:
    secretKeyRef: {name: {{ $auth }}, key: {{ $v.serviceAuth.systemKey }}}
- name: ELASTICSEARCH_URL
  valueFrom:
    secretKeyRef: {name: {{ $v.elasticsearch.existingSecret }}, key: {{ $v.elasticsearch.urlKey }}}
{{- if and (eq $v.embedder.provider "openai") $v.embedder.openai.existingSecret }}
- name: EMBEDDING_API_KEY
  valueFrom:
    secretKeyRef: {name: {{ $v.embedder.openai.existingSecret }}, key: {{ $v.embedder.openai.apiKeyKey }}}
{{- end }}
{{- end }}
{{- range $key, $value := .c.env }}
- name: {{ $key }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end -}}

{{/* Which Secret keys this component reads: a change of name or key rolls its pods. */}}
{{- define "kb.secretRefs" -}}
{{- $v := .root.Values -}}
{{- if ne .name "bootstrap" -}}
service-auth {{ include "kb.serviceAuthSecretName" .root }}/{{ $v.serviceAuth.serviceKey }} {{ if eq .name "similarity" }}{{ $v.serviceAuth.systemKey }}{{ end }} {{ $v.serviceAuth.acceptedServiceKey }}
{{ end -}}
{{- if or (eq .name "knowledge") (eq .name "catalog") (eq .name "bootstrap") -}}
mongodb {{ $v.mongodb.existingSecret }}/{{ $v.mongodb.uriKey }}
{{ end -}}
{{- if and (eq .name "gateway") $v.elasticsearch.readPath.enabled -}}
elasticsearch {{ $v.elasticsearch.readPath.existingSecret | default $v.elasticsearch.existingSecret }}/{{ $v.elasticsearch.readPath.urlKey | default $v.elasticsearch.urlKey }}
{{ end -}}
{{- if eq .name "similarity" -}}
elasticsearch {{ $v.elasticsearch.existingSecret }}/{{ $v.elasticsearch.urlKey }}
embedder {{ $v.embedder.provider }} {{ $v.embedder.openai.existingSecret }}/{{ $v.embedder.openai.apiKeyKey }}
{{ end -}}
{{- end -}}

{{- define "kb.probes" -}}
{{- $p := .c.probes -}}
{{- $check := dict -}}
{{- if eq .name "gateway" -}}
{{- $_ := set $check "startup" (dict "httpGet" (dict "path" "/healthz" "port" (int .c.port))) -}}
{{- $_ := set $check "liveness" (dict "httpGet" (dict "path" "/healthz" "port" (int .c.port))) -}}
{{- $_ := set $check "readiness" (dict "httpGet" (dict "path" "/readyz" "port" (int .c.port))) -}}
{{- else -}}
{{- /* grpc.health.v1. Ready: "" (this pod serves: started and not draining; a dependency
       down is reported under "dependency:<name>" and answered with UNAVAILABLE per call).
       Started and live: "liveness", SERVING once start-up (the model load) is done, whatever the
       databases do: a restart would not bring a database back. */ -}}
{{- $_ := set $check "startup" (dict "grpc" (dict "port" (int $.c.port) "service" "liveness")) -}}
{{- $_ := set $check "liveness" (dict "grpc" (dict "port" (int $.c.port) "service" "liveness")) -}}
{{- $_ := set $check "readiness" (dict "grpc" (dict "port" (int $.c.port))) -}}
{{- end -}}
{{- range $kind := list "startup" "readiness" "liveness" }}
{{ $kind }}Probe:
  {{- toYaml (get $check $kind) | nindent 2 }}
  {{- toYaml (get $p $kind) | nindent 2 }}
{{- end -}}
{{- end -}}

{{- define "kb.deployment" -}}
{{- $v := .root.Values -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "kb.name" . }}
  labels:
    {{- include "kb.labels" . | nindent 4 }}
spec:
  {{- if not .c.autoscaling.enabled }}
  replicas: {{ .c.replicas | int }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "kb.selectorLabels" . | nindent 6 }}
  strategy:
    {{- if $v.hostNetwork }}
    # On the host's network a new pod cannot bind the port while the old one holds it.
    type: Recreate
    {{- else }}
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
    {{- end }}
  template:
    metadata:
      labels:
        {{- include "kb.labels" . | nindent 8 }}
      annotations:
        # A changed ConfigMap or Secret reference rolls the pods (a Secret's content does not:
        # `kubectl rollout restart` after rotating one).
        checksum/config: {{ include (print .root.Template.BasePath "/config.yaml") .root | sha256sum }}
        {{- with include "kb.secretRefs" . }}
        checksum/secret-refs: {{ sha256sum . }}
        {{- end }}
        {{- if $v.observability.metrics.enabled }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ .c.metricsPort | int | quote }}
        prometheus.io/path: /metrics
        {{- end }}
        {{- with .c.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "kb.name" . }}
      automountServiceAccountToken: false
      # Service links would add variables for every Service in the namespace (every tenant's).
      enableServiceLinks: false
      {{- if $v.hostNetwork }}
      hostNetwork: true
      dnsPolicy: ClusterFirstWithHostNet
      {{- end }}
      # preStop sleep 5 s (endpoints are removed while the pod still serves) + the services'
      # own drain bound of 10 s + 2 s to flush telemetry + 3 s margin.
      terminationGracePeriodSeconds: 20
      securityContext:
        {{- toYaml .c.podSecurityContext | nindent 8 }}
      {{- with $v.image.pullSecrets }}
      imagePullSecrets:
        {{- range . }}
        - name: {{ . }}
        {{- end }}
      {{- end }}
      containers:
        - name: {{ .name }}
          image: {{ include "kb.image" . }}
          imagePullPolicy: {{ $v.image.pullPolicy }}
          envFrom:
            - configMapRef:
                name: {{ include "kb.name" (dict "root" .root "name" "config") }}
          env:
            {{- include "kb.componentEnv" . | nindent 12 }}
          {{- if not $v.hostNetwork }}
          {{- /* podman kube play refuses declared ports on the host network */}}
          ports:
            - name: {{ ternary "http" "grpc" (eq .name "gateway") }}
              containerPort: {{ .c.port | int }}
              protocol: TCP
            {{- if $v.observability.metrics.enabled }}
            - name: metrics
              containerPort: {{ .c.metricsPort | int }}
              protocol: TCP
            {{- end }}
          {{- end }}
          {{- include "kb.probes" . | trim | nindent 10 }}
          lifecycle:
            # The image has no shell, so the kubelet's own sleep rather than `exec sleep`.
            preStop:
              sleep: {seconds: 5}
          resources:
            {{- toYaml .c.resources | nindent 12 }}
          securityContext:
            {{- toYaml .c.securityContext | nindent 12 }}
          volumeMounts:
            # The root filesystem is read-only; Node and its libraries may still want a /tmp.
            - name: tmp
              mountPath: /tmp
      volumes:
        - name: tmp
          emptyDir: {sizeLimit: 64Mi}
      {{- with .c.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .c.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .c.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .c.topologySpreadConstraints }}
      {{- $constraints := list }}
      {{- range . }}
      {{- $constraint := deepCopy . }}
      {{- /* spread this component's pods unless told otherwise */}}
      {{- if not (hasKey $constraint "labelSelector") }}
      {{- $_ := set $constraint "labelSelector" (dict "matchLabels" (include "kb.selectorLabels" $ | fromYaml)) }}
      {{- end }}
      {{- $constraints = append $constraints $constraint }}
      {{- end }}
      topologySpreadConstraints:
        {{- toYaml $constraints | nindent 8 }}
      {{- end }}
{{- end -}}

{{- define "kb.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "kb.name" . }}
  labels:
    {{- include "kb.labels" . | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "kb.selectorLabels" . | nindent 4 }}
  ports:
    {{- if eq .name "gateway" }}
    - name: http
      port: {{ .c.port | int }}
      targetPort: {{ .c.port | int }}
      protocol: TCP
      appProtocol: http
    {{- else }}
    - name: grpc
      port: {{ .c.port | int }}
      targetPort: {{ .c.port | int }}
      protocol: TCP
      appProtocol: grpc
    {{- end }}
    {{- if .root.Values.observability.metrics.enabled }}
    - name: metrics
      port: {{ .c.metricsPort | int }}
      targetPort: {{ .c.metricsPort | int }}
      protocol: TCP
      appProtocol: http
    {{- end }}
{{- end -}}

{{/*
A back service's headless Service: DNS answers with the address of every ready pod, which the
callers' dns:/// targets balance over (kb.address). Only the gRPC port: the ClusterIP Service
above stays for the metrics port (the ServiceMonitor scrapes through it) and for humans.
*/}}
{{- define "kb.headlessService" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "kb.headlessName" . }}
  labels:
    {{- include "kb.labels" . | nindent 4 }}
spec:
  type: ClusterIP
  clusterIP: None
  # An unready pod (starting or draining) drops out of the answer.
  publishNotReadyAddresses: false
  selector:
    {{- include "kb.selectorLabels" . | nindent 4 }}
  ports:
    - name: grpc
      port: {{ .c.port | int }}
      targetPort: {{ .c.port | int }}
      protocol: TCP
      appProtocol: grpc
{{- end -}}

{{/*
maxUnavailable 1 rather than minAvailable 1: with one replica minAvailable 1 would block every
node drain forever; with more, maxUnavailable 1 still keeps all but one serving.
*/}}
{{- define "kb.podDisruptionBudget" -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "kb.name" . }}
  labels:
    {{- include "kb.labels" . | nindent 4 }}
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      {{- include "kb.selectorLabels" . | nindent 6 }}
{{- end -}}

{{- define "kb.horizontalPodAutoscaler" -}}
{{- $a := .c.autoscaling -}}
{{- if lt (int $a.maxReplicas) (int $a.minReplicas) -}}
{{- fail (printf "components.%s.autoscaling: maxReplicas %v is below minReplicas %v" .name $a.maxReplicas $a.minReplicas) -}}
{{- end -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "kb.name" . }}
  labels:
    {{- include "kb.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "kb.name" . }}
  minReplicas: {{ $a.minReplicas | int }}
  maxReplicas: {{ $a.maxReplicas | int }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target: {type: Utilization, averageUtilization: {{ $a.targetCPUUtilizationPercentage | int }}}
    {{- with $a.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target: {type: Utilization, averageUtilization: {{ . | int }}}
    {{- end }}
{{- end -}}
