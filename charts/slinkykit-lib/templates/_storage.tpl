{{- /* Shared storage: the two ReadWriteMany claims and the rules that schema alone cannot express. */ -}}

{{- /* slinkykit.storage.volumes: the fixed volume key -> pod volume name map. */ -}}
{{- define "slinkykit.storage.volumeNames" -}}
home: shared-home
data: shared-data
{{- end -}}

{{- /* slinkykit.storage.validate: fails on cross-field storage rules (schema covers types, keys and patterns). */ -}}
{{- define "slinkykit.storage.validate" -}}
{{- $s := .Values.storage -}}
{{- range $key := list "home" "data" -}}
{{- $size := toString (index $s $key).size -}}
{{- if regexMatch `^[0.]*([A-Za-z]+|[eE][+-]?[0-9]+)?$` $size -}}
{{- fail (printf "storage.%s.size: %q is not a positive quantity; request some space, e.g. 100Gi" $key $size) -}}
{{- end -}}
{{- end -}}
{{- if $s.enabled -}}
{{- range $key := list "home" "data" -}}
{{- $vol := index $s $key -}}
{{- if and (empty $vol.storageClassName) (empty $s.sharedStorageClass) -}}
{{- fail (printf "storage.%s.storageClassName: no ReadWriteMany storage class for the %s claim; set storage.sharedStorageClass (--shared-storage-class) or storage.%s.storageClassName (the generic storage class is never used for shared claims)" $key $key $key) -}}
{{- end -}}
{{- end -}}
{{- if eq $s.home.name $s.data.name -}}
{{- fail (printf "storage.data.name: both claims are named %q; give storage.home.name and storage.data.name different names" $s.home.name) -}}
{{- end -}}
{{- if eq $s.home.mountPath $s.data.mountPath -}}
{{- fail (printf "storage.data.mountPath: both claims mount at %q; give storage.home.mountPath and storage.data.mountPath different paths" $s.home.mountPath) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* slinkykit.storage.claims: {claims: [...]} with the effective class of each shared claim; empty when disabled. */ -}}
{{- define "slinkykit.storage.claims" -}}
{{- include "slinkykit.storage.validate" . -}}
{{- $s := .Values.storage -}}
{{- $names := include "slinkykit.storage.volumeNames" . | fromYaml -}}
{{- $claims := list -}}
{{- if $s.enabled -}}
{{- range $key := list "home" "data" -}}
{{- $vol := index $s $key -}}
{{- $class := $vol.storageClassName | default $s.sharedStorageClass -}}
{{- $claims = append $claims (dict "key" $key "name" $vol.name "storageClassName" $class "size" $vol.size "mountPath" $vol.mountPath "volumeName" (index $names $key)) -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "claims" $claims) -}}
{{- end -}}
