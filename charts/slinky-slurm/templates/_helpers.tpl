{{- /* Helpers only the slinky-slurm chart needs; names, labels, storage and Enroot come from slinkykit-lib. */ -}}

{{- /* slinky-slurm.image: "repository:tag", "repository@digest" or "repository:tag@digest"; fails on a missing repository or an unpinned tag. args (list path image). */ -}}
{{- define "slinky-slurm.image" -}}
{{- $path := index . 0 -}}{{- $img := index . 1 | default dict -}}
{{- if not $img.repository -}}
{{- fail (printf "%s.repository: no image repository; set one here or in the defaults it inherits from" $path) -}}
{{- end -}}
{{- if eq (toString $img.tag) "latest" -}}
{{- fail (printf "%s.tag: \"latest\" is not a pinned version and renders would not describe what runs; use a release tag such as 25.11-ubuntu24.04 or set %s.digest" $path $path) -}}
{{- end -}}
{{- if and $img.tag $img.digest -}}
{{- printf "%s:%s@%s" $img.repository $img.tag $img.digest -}}
{{- else if $img.digest -}}
{{- printf "%s@%s" $img.repository $img.digest -}}
{{- else if $img.tag -}}
{{- printf "%s:%s" $img.repository $img.tag -}}
{{- else -}}
{{- fail (printf "%s.tag: no tag and no digest; pin the image with a release tag or a digest" $path) -}}
{{- end -}}
{{- end -}}

{{- /* slinky-slurm.dropEmpty: removes nulls and empty strings, lists and maps from the top level of a map, in place; numbers and booleans stay. */ -}}
{{- define "slinky-slurm.dropEmpty" -}}
{{- $m := . -}}
{{- range $k, $v := $m -}}
{{- if or (kindIs "invalid" $v) (and (or (kindIs "string" $v) (kindIs "slice" $v) (kindIs "map" $v)) (empty $v)) -}}
{{- $_ := unset $m $k -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* slinky-slurm.container: a CR container from values: image rendered, empty fields dropped, the release pull policy unless set. args (list $ path container). */ -}}
{{- define "slinky-slurm.container" -}}
{{- $root := index . 0 -}}{{- $path := index . 1 -}}{{- $in := index . 2 | default dict -}}
{{- $c := omit $in "image" -}}
{{- include "slinky-slurm.dropEmpty" $c -}}
{{- $_ := set $c "image" (include "slinky-slurm.image" (list (printf "%s.image" $path) $in.image)) -}}
{{- if not $c.imagePullPolicy }}{{ $_ := set $c "imagePullPolicy" $root.Values.imagePullPolicy }}{{ end -}}
{{- include "slinkykit.toYaml" (list $c $path) -}}
{{- end -}}

{{- /* slinky-slurm.podTemplate: a CR pod template {metadata, spec} from a component's metadata and podSpec, with the release pull secrets and priority class. args (list $ values valuesPath). */ -}}
{{- define "slinky-slurm.podTemplate" -}}
{{- $root := index . 0 -}}{{- $v := index . 1 -}}
{{- $spec := deepCopy ($v.podSpec | default dict) -}}
{{- $_ := set $spec "imagePullSecrets" (concat ($spec.imagePullSecrets | default list) ($root.Values.imagePullSecrets | default list) | uniq) -}}
{{- if not $spec.priorityClassName }}{{ $_ := set $spec "priorityClassName" $root.Values.priorityClassName }}{{ end -}}
{{- include "slinky-slurm.dropEmpty" $spec -}}
{{- $template := dict "spec" $spec -}}
{{- with $v.metadata }}{{ $_ := set $template "metadata" . }}{{ end -}}
{{- include "slinkykit.toYaml" (list $template (printf "%s.podSpec" (index . 2))) -}}
{{- end -}}

{{- /* slinky-slurm.keyRef: {name, key} of the Secret holding slurmKeyRef or jwtKeyRef; the name defaults to <fullname>-auth-slurm / -auth-jwt. args (list $ valuesKey). */ -}}
{{- define "slinky-slurm.keyRef" -}}
{{- $root := index . 0 -}}{{- $ref := index $root.Values (index . 1) -}}
{{- $suffix := get (dict "slurmKeyRef" "auth-slurm" "jwtKeyRef" "auth-jwt") (index . 1) -}}
{{- toYaml (dict "name" ($ref.name | default (printf "%s-%s" (include "slinkykit.fullname" $root) $suffix)) "key" $ref.key) -}}
{{- end -}}

{{- /* slinky-slurm.keySecret: with <valuesKey>.create, the key Secret: random bytes on first install, the cluster's value (lookup) afterwards. args (list $ valuesKey bytes). */ -}}
{{- define "slinky-slurm.keySecret" -}}
{{- $root := index . 0 -}}
{{- if (index $root.Values (index . 1)).create -}}
{{- $ref := include "slinky-slurm.keyRef" (list $root (index . 1)) | fromYaml -}}
{{- $value := dig "data" $ref.key "" (lookup "v1" "Secret" $root.Release.Namespace $ref.name) -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ $ref.name }}
  namespace: {{ $root.Release.Namespace | quote }}
  labels:
    {{- include "slinkykit.labels" (list $root "auth") | nindent 4 }}
  annotations:
    # Kept on uninstall: a new key would lock out every running daemon and token.
    helm.sh/resource-policy: keep
type: Opaque
data:
  {{ $ref.key | quote }}: {{ $value | default (randBytes (index . 2)) | quote }}
{{- end -}}
{{- end -}}

{{- /* slinky-slurm.sssdConfRef: {name, key} of the Secret holding sssd.conf (sssd.secretRef, else <fullname>-sssd-conf). */ -}}
{{- define "slinky-slurm.sssdConfRef" -}}
{{- $ref := .Values.sssd.secretRef -}}
{{- toYaml (dict "name" ($ref.name | default (printf "%s-sssd-conf" (include "slinkykit.fullname" .))) "key" $ref.key) -}}
{{- end -}}

{{- /* slinky-slurm.configName: the ConfigMap with the extra Slurm config files. */ -}}
{{- define "slinky-slurm.configName" -}}
{{- printf "%s-config-files" (include "slinkykit.fullname" .) -}}
{{- end -}}
