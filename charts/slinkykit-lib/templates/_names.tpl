{{- /* Names and labels shared by both charts. */ -}}

{{- /* slinkykit.fullname: the release name when it already contains "slinky-slurm", else "<release>-slinky-slurm". */ -}}
{{- define "slinkykit.fullname" -}}
{{- if contains "slinky-slurm" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-slinky-slurm" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- /* slinkykit.enroot.configMapName: fixed, release-independent name of the Enroot ConfigMap. */ -}}
{{- define "slinkykit.enroot.configMapName" -}}slinky-slurm-enroot-config{{- end -}}

{{- /* slinkykit.selectorLabels: labels that identify the product and component; args (list $ctx $component). */ -}}
{{- define "slinkykit.selectorLabels" -}}
{{- $ctx := index . 0 -}}
{{- $labels := dict "app.kubernetes.io/name" "slinky-slurm" "app.kubernetes.io/part-of" "slinky-slurm" -}}
{{- with index . 1 }}{{ $_ := set $labels "app.kubernetes.io/component" . }}{{ end -}}
{{- toYaml $labels -}}
{{- end -}}

{{- /* slinkykit.labels: standard labels for release-owned objects; args (list $ctx $component). */ -}}
{{- define "slinkykit.labels" -}}
{{- $ctx := index . 0 -}}
{{- $labels := include "slinkykit.selectorLabels" . | fromYaml -}}
{{- $_ := set $labels "app.kubernetes.io/instance" $ctx.Release.Name -}}
{{- $_ := set $labels "app.kubernetes.io/managed-by" $ctx.Release.Service -}}
{{- $_ := set $labels "helm.sh/chart" (printf "%s-%s" $ctx.Chart.Name $ctx.Chart.Version | replace "+" "_") -}}
{{- with $ctx.Chart.AppVersion }}{{ $_ := set $labels "app.kubernetes.io/version" . }}{{ end -}}
{{- toYaml $labels -}}
{{- end -}}

{{- /* slinkykit.toYaml: toYaml that fails instead of rendering nothing (Helm's toYaml returns "" for text YAML cannot hold, such as U+0080-U+009F or U+FFFE); args (list value valuesPath). */ -}}
{{- define "slinkykit.toYaml" -}}
{{- $out := toYaml (index . 0) -}}
{{- if not $out -}}
{{- fail (printf "%s: holds a character YAML cannot carry (a C1 control U+0080-U+009F, U+FFFE or U+FFFF); remove it" (index . 1)) -}}
{{- end -}}
{{- $out -}}
{{- end -}}
