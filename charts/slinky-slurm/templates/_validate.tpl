{{- /* slinky-slurm.validate: rules of this chart's values that the schema cannot express (set keys and mounts are checked where the sets render); renders nothing. */ -}}
{{- define "slinky-slurm.validate" -}}
{{- if hasKey .Values.configFiles "slurm.conf" -}}
{{- fail "configFiles[\"slurm.conf\"]: the operator generates slurm.conf from the Controller and its sets; put extra lines in controller.extraConf instead" -}}
{{- end -}}
{{- if and (not .Values.sssd.secretRef.name) (not (trim .Values.sssd.conf)) -}}
{{- fail "sssd.conf: empty, and LoginSets cannot start without an sssd.conf; give its content or name a pre-created Secret in sssd.secretRef.name" -}}
{{- end -}}
{{- end -}}
