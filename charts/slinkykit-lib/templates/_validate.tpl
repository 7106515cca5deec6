{{- /* slinkykit.validate: every rule both charts enforce beyond the schema; renders nothing. */ -}}
{{- define "slinkykit.validate" -}}
{{- include "slinkykit.storage.validate" . -}}
{{- $_ := include "slinkykit.enroot.data" . -}}
{{- end -}}
