{{- /* LoginSets and NodeSets: merging a set over its defaults, and the mounts every set is guaranteed. */ -}}

{{- /* slinky-slurm.setRole: the role of a set kind in CR names and labels: login (loginset) or worker (nodeset). */ -}}
{{- define "slinky-slurm.setRole" -}}
{{- ternary "worker" "login" (eq . "nodeset") -}}
{{- end -}}

{{- /* slinky-slurm.setContainer: the container of a set kind that gets the shared mounts: login (loginset) or slurmd (nodeset). */ -}}
{{- define "slinky-slurm.setContainer" -}}
{{- ternary "slurmd" "login" (eq . "nodeset") -}}
{{- end -}}

{{- /* slinky-slurm.mergeInto: merges src into dst in place: maps key by key, lists appended (dst first), other values replaced. args (list dst src). */ -}}
{{- define "slinky-slurm.mergeInto" -}}
{{- $dst := index . 0 -}}
{{- range $k, $v := index . 1 -}}
{{- $cur := get $dst $k -}}
{{- if and (kindIs "map" $v) (kindIs "map" $cur) -}}
{{- include "slinky-slurm.mergeInto" (list $cur $v) -}}
{{- else if and (kindIs "slice" $v) (kindIs "slice" $cur) -}}
{{- $_ := set $dst $k (concat $cur $v) -}}
{{- else -}}
{{- $_ := set $dst $k $v -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* slinky-slurm.setName: "<fullname>-<role>-<key>"; fails unless the key is a DNS label and the name fits the 63-character pod label the operator sets. args (list $ kind key). */ -}}
{{- define "slinky-slurm.setName" -}}
{{- $root := index . 0 -}}{{- $kind := index . 1 -}}{{- $key := index . 2 -}}
{{- if not (regexMatch `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$` $key) -}}
{{- fail (printf "%s: %q is not a valid set name; the key becomes part of the %s name, so use lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. gpu-a100)" (include "slinkykit.valuePath" (list (printf "%ss" $kind) $key)) $key (ternary "LoginSet" "NodeSet" (eq $kind "loginset"))) -}}
{{- end -}}
{{- $path := printf "%ss.%s" $kind $key -}}
{{- $name := printf "%s-%s-%s" (include "slinkykit.fullname" $root) (include "slinky-slurm.setRole" $kind) $key -}}
{{- if gt (len $name) 63 -}}
{{- fail (printf "%s: the %s name %q has %d characters, but the operator labels its pods with it and a label value allows 63; shorten the set key or the release name" $path (ternary "LoginSet" "NodeSet" (eq $kind "loginset")) $name (len $name)) -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{- /* slinky-slurm.setValues: fills out with <kind>Defaults merged with <kind>s.<key> (lists appended), enabled (default true), and the container and podSpec maps. args (list $ kind key out). */ -}}
{{- define "slinky-slurm.setValues" -}}
{{- $root := index . 0 -}}{{- $kind := index . 1 -}}{{- $out := index . 3 -}}
{{- include "slinky-slurm.mergeInto" (list $out (deepCopy (index $root.Values (printf "%sDefaults" $kind) | default dict))) -}}
{{- include "slinky-slurm.mergeInto" (list $out (deepCopy (index (index $root.Values (printf "%ss" $kind)) (index . 2) | default dict))) -}}
{{- if not (hasKey $out "enabled") }}{{ $_ := set $out "enabled" true }}{{ end -}}
{{- range $field := list (include "slinky-slurm.setContainer" $kind) "podSpec" -}}
{{- if not (kindIs "map" (get $out $field)) }}{{ $_ := set $out $field dict }}{{ end -}}
{{- end -}}
{{- end -}}

{{- /* slinky-slurm.sharedMounts: the volumes and mounts every set gets, each with what it is and how to avoid a conflict: the Enroot files always, the shared claims when storage is enabled. */ -}}
{{- define "slinky-slurm.sharedMounts" -}}
{{- $cm := include "slinkykit.enroot.configMapName" . -}}
{{- $volumes := list (dict "entry" (dict "name" "enroot-config" "configMap" (dict "name" $cm)) "what" (printf "the volume of the Enroot ConfigMap %s" $cm)) -}}
{{- $mounts := list -}}
{{- range (include "slinkykit.enroot.files" . | fromYaml).files -}}
{{- $mounts = append $mounts (dict "entry" (dict "name" "enroot-config" "mountPath" .path "subPath" .key "readOnly" true) "what" (printf "the Enroot file %s from ConfigMap %s" .key $cm) "fix" "remove it (Enroot settings belong in enroot.config and enroot.env)") -}}
{{- end -}}
{{- range (include "slinkykit.storage.claims" . | fromYaml).claims -}}
{{- $volumes = append $volumes (dict "entry" (dict "name" .volumeName "persistentVolumeClaim" (dict "claimName" .name)) "what" (printf "the volume of the shared %s claim %s" .key .name)) -}}
{{- $mounts = append $mounts (dict "entry" (dict "name" .volumeName "mountPath" .mountPath) "what" (printf "the shared %s claim %s" .key .name) "fix" (printf "remove it or change storage.%s.mountPath" .key)) -}}
{{- end -}}
{{- toYaml (dict "volumes" $volumes "mounts" $mounts) -}}
{{- end -}}

{{- /* slinky-slurm.canonical: an entry as compact JSON without empty fields, so that identical volumes or mounts compare equal. */ -}}
{{- define "slinky-slurm.canonical" -}}
{{- $m := deepCopy . -}}
{{- include "slinky-slurm.dropEmpty" $m -}}
{{- if $m.readOnly | not }}{{ $_ := unset $m "readOnly" }}{{ end -}}
{{- with $m.mountPath }}{{ $_ := set $m "mountPath" (clean .) }}{{ end -}}
{{- toJson $m -}}
{{- end -}}

{{- /* slinky-slurm.setMounts: sets out.volumes and out.volumeMounts of a set: the user's (defaults first, identical entries once) then the shared ones; fails on a conflict naming the entry and the fix. args dict root kind key shared out. */ -}}
{{- define "slinky-slurm.setMounts" -}}
{{- $root := .root -}}{{- $out := .out -}}
{{- $container := include "slinky-slurm.setContainer" .kind -}}
{{- $setPath := printf "%ss.%s" .kind .key -}}
{{- $sources := list (list (printf "%sDefaults" .kind) (index $root.Values (printf "%sDefaults" .kind))) (list $setPath (index (index $root.Values (printf "%ss" .kind)) .key)) -}}
{{- $byName := dict -}}{{- $byPath := dict -}}
{{- range .shared.volumes }}{{ $_ := set $byName .entry.name . }}{{ end -}}
{{- range .shared.mounts }}{{ $_ := set $byPath (clean .entry.mountPath) . }}{{ end -}}
{{- $volumes := list -}}{{- $mounts := list -}}
{{- /* Pod volumes and claim templates first: a mount in the defaults may use a volume of the set. */ -}}
{{- range $src := $sources -}}
{{- $vals := index $src 1 | default dict -}}
{{- range $i, $v := dig "podSpec" "volumes" list $vals -}}
{{- $path := printf "%s.podSpec.volumes[%d]" (index $src 0) $i -}}
{{- $prev := get $byName $v.name -}}
{{- if not $prev -}}
{{- $_ := set $byName $v.name (dict "path" $path "entry" $v) -}}
{{- $volumes = append $volumes $v -}}
{{- else if ne (include "slinky-slurm.canonical" $v) (include "slinky-slurm.canonical" $prev.entry) -}}
{{- if $prev.what -}}
{{- fail (printf "%s: volume %q conflicts with %s, which the chart adds to every set under that name; remove it, or rename it if it is another volume" $path $v.name $prev.what) -}}
{{- else -}}
{{- fail (printf "%s: volume %q is already declared by %s with another source; rename one of them" $path $v.name $prev.path) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $i, $t := dig "volumeClaimTemplates" list $vals -}}
{{- $name := dig "metadata" "name" "" $t -}}
{{- with get $byName $name -}}
{{- fail (printf "%s.volumeClaimTemplates[%d]: claim template %q would replace %s (a claim template wins over a pod volume of the same name); rename it" (index $src 0) $i $name (.what | default (printf "the volume declared by %s" .path))) -}}
{{- end -}}
{{- $_ := set $byName $name (dict "path" (printf "%s.volumeClaimTemplates[%d]" (index $src 0) $i) "entry" $t) -}}
{{- end -}}
{{- end -}}
{{- range $src := $sources -}}
{{- range $i, $m := dig $container "volumeMounts" list (index $src 1 | default dict) -}}
{{- $path := printf "%s.%s.volumeMounts[%d]" (index $src 0) $container $i -}}
{{- if not (hasKey $byName $m.name) -}}
{{- fail (printf "%s: mount %q at %s names no volume of this set; declare it in %s.podSpec.volumes (or in the defaults)" $path $m.name $m.mountPath $setPath) -}}
{{- end -}}
{{- $prev := get $byPath (clean $m.mountPath) -}}
{{- if not $prev -}}
{{- $_ := set $byPath (clean $m.mountPath) (dict "path" $path "entry" $m) -}}
{{- $mounts = append $mounts $m -}}
{{- else if ne (include "slinky-slurm.canonical" $m) (include "slinky-slurm.canonical" $prev.entry) -}}
{{- if $prev.what -}}
{{- fail (printf "%s: mount %q at %s conflicts with %s mounted there; %s" $path $m.name $m.mountPath $prev.what $prev.fix) -}}
{{- else -}}
{{- fail (printf "%s: mount %q at %s conflicts with %s, which mounts %q there; mount one of them elsewhere" $path $m.name $m.mountPath $prev.path $prev.entry.name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range .shared.volumes }}{{ $volumes = append $volumes .entry }}{{ end -}}
{{- range .shared.mounts }}{{ $mounts = append $mounts .entry }}{{ end -}}
{{- $_ := set $out "volumes" $volumes -}}
{{- $_ := set $out "volumeMounts" $mounts -}}
{{- end -}}
