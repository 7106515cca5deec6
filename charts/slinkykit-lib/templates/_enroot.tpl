{{- /* Enroot files: validation and rendering of enroot.config (enroot.conf) and enroot.env (environ.d). */ -}}

{{- /* slinkykit.valuePath: "prefix.KEY", or prefix["KEY"] when KEY is not a plain identifier; args (list prefix key). */ -}}
{{- define "slinkykit.valuePath" -}}
{{- $key := index . 1 -}}
{{- if regexMatch `^[A-Za-z_][A-Za-z0-9_]*$` $key -}}
{{- printf "%s.%s" (index . 0) $key -}}
{{- else -}}
{{- printf "%s[%q]" (index . 0) $key -}}
{{- end -}}
{{- end -}}

{{- /* slinkykit.enroot.scalar: a string value as written, a whole number in decimal; fails on anything else. args (list path value). */ -}}
{{- define "slinkykit.enroot.scalar" -}}
{{- $path := index . 0 -}}{{- $v := index . 1 -}}
{{- if kindIs "string" $v -}}
{{- $v -}}
{{- else if kindIs "bool" $v -}}
{{- fail (printf "%s: YAML read this value as the boolean %v, not text; quote it (e.g. \"yes\" or \"no\") so it renders as written" $path $v) -}}
{{- else if or (kindIs "float64" $v) (kindIs "int64" $v) (kindIs "int" $v) -}}
{{- $f := float64 $v -}}
{{- if or (ne (float64 (int64 $f)) $f) (gt $f 9007199254740991.0) (lt $f -9007199254740991.0) -}}
{{- fail (printf "%s: %v is not a whole number Helm can render exactly; quote it as a string" $path $v) -}}
{{- end -}}
{{- printf "%d" (int64 $f) -}}
{{- else -}}
{{- fail (printf "%s: expected a single-line string, got %s; give a string or null (null removes the key)" $path (kindOf $v)) -}}
{{- end -}}
{{- end -}}

{{- /* slinkykit.enroot.singleLine: fails when a key or value has a control character (line injection) or stray whitespace; args (list path text what). */ -}}
{{- define "slinkykit.enroot.singleLine" -}}
{{- $path := index . 0 -}}{{- $s := index . 1 -}}{{- $what := index . 2 -}}
{{- if regexMatch `[\x00-\x1f\x7f-\x9f\x{2028}\x{2029}\x{feff}\x{fffe}\x{ffff}]` $s -}}
{{- fail (printf "%s: the %s %q contains a control character (newline, carriage return, tab, NUL, a C1 control or a line separator) that would inject or corrupt a line of the Enroot file; use a single-line %s" $path $what $s $what) -}}
{{- end -}}
{{- if ne $s (trim $s) -}}
{{- fail (printf "%s: the %s %q has leading or trailing whitespace, which Enroot would keep or strip silently; remove it" $path $what $s) -}}
{{- end -}}
{{- end -}}

{{- /* slinkykit.enroot.nearestKey: the known ENROOT_ key closest (edit distance) to the given one. */ -}}
{{- define "slinkykit.enroot.nearestKey" -}}
{{- $a := . -}}
{{- $best := "" -}}{{- $bestD := 1000 -}}
{{- range $b, $_ := include "slinkykit.enroot.knownKeys" $ | fromYaml -}}
{{- $prev := until (int (add1 (len $b))) -}}
{{- range $i := until (len $a) -}}
{{- $cur := list (add1 $i) -}}
{{- $ca := substr $i (int (add1 $i)) $a -}}
{{- range $j := until (len $b) -}}
{{- $cost := ternary 0 1 (eq $ca (substr $j (int (add1 $j)) $b)) -}}
{{- $cur = append $cur (min (add1 (index $prev (add1 $j))) (add1 (index $cur $j)) (add (index $prev $j) $cost)) -}}
{{- end -}}
{{- $prev = $cur -}}
{{- end -}}
{{- if lt (last $prev) $bestD -}}{{- $best = $b -}}{{- $bestD = last $prev -}}{{- end -}}
{{- end -}}
{{- $best -}}
{{- end -}}

{{- /* slinkykit.enroot.pathValue: fails unless the value is an absolute path (tokens ${HOME} ${USER} ${UID} ${TMPDIR} $(id -u) $(id -g) allowed); args (list path value). */ -}}
{{- define "slinkykit.enroot.pathValue" -}}
{{- $path := index . 0 -}}{{- $v := index . 1 -}}
{{- $plain := $v -}}
{{- range $tok := list "${HOME}" "${USER}" "${UID}" "${TMPDIR}" "$(id -u)" "$(id -g)" -}}
{{- $plain = replace $tok "x" $plain -}}
{{- end -}}
{{- if not (or (hasPrefix "/" $v) (hasPrefix "${HOME}" $v)) -}}
{{- fail (printf "%s: %q is not an absolute path; start it with / or ${HOME}" $path $v) -}}
{{- end -}}
{{- if not (regexMatch `^/?[A-Za-z0-9_./@%+:,-]*$` $plain) -}}
{{- fail (printf "%s: %q has characters Enroot's shell would expand or execute; use only letters, digits, _ . / @ %% + : , - and the tokens ${HOME} ${USER} ${UID} ${TMPDIR} $(id -u) $(id -g)" $path $v) -}}
{{- end -}}
{{- end -}}

{{- /* slinkykit.enroot.configValue: the rendered text of one enroot.config entry, or a failure; args (list key value). */ -}}
{{- define "slinkykit.enroot.configValue" -}}
{{- $key := index . 0 -}}{{- $v := index . 1 -}}
{{- $path := include "slinkykit.valuePath" (list "enroot.config" $key) -}}
{{- include "slinkykit.enroot.singleLine" (list $path $key "key") -}}
{{- $spec := dict -}}
{{- $known := include "slinkykit.enroot.knownKeys" . | fromYaml -}}
{{- if hasKey $known $key -}}
{{- $spec = index $known $key -}}
{{- else if hasPrefix "ENROOT_" $key -}}
{{- fail (printf "%s: Enroot does not read %s and would ignore it silently; did you mean %s?" $path $key (include "slinkykit.enroot.nearestKey" $key)) -}}
{{- else -}}
{{- range $re, $kind := include "slinkykit.enroot.otherKeys" . | fromYaml -}}
{{- if regexMatch $re $key }}{{ $spec = dict "kind" $kind }}{{ end -}}
{{- end -}}
{{- if not $spec -}}
{{- fail (printf "%s: Enroot ignores this key in enroot.conf; use a known ENROOT_ key, NVIDIA_*, MELLANOX_*, SSL_CERT_DIR, SSL_CERT_FILE or a lowercase *_proxy key (per-container variables go in enroot.env)" $path) -}}
{{- end -}}
{{- end -}}
{{- if eq $spec.kind "bool" -}}
{{- if kindIs "bool" $v -}}
{{- ternary "yes" "no" $v -}}
{{- else -}}
{{- $s := include "slinkykit.enroot.scalar" (list $path $v) -}}
{{- include "slinkykit.enroot.singleLine" (list $path $s "value") -}}
{{- if has (lower $s) (list "yes" "true" "y") -}}yes
{{- else if has (lower $s) (list "no" "false" "n") -}}no
{{- else -}}
{{- fail (printf "%s: %q is not a boolean Enroot understands (it would read it as TRUE); use yes or no" $path $s) -}}
{{- end -}}
{{- end -}}
{{- else -}}
{{- $s := include "slinkykit.enroot.scalar" (list $path $v) -}}
{{- include "slinkykit.enroot.singleLine" (list $path $s "value") -}}
{{- if eq $s "" -}}
{{- fail (printf "%s: an empty value makes Enroot fall back to its built-in default; set a value, or null to drop the key" $path) -}}
{{- end -}}
{{- if eq $spec.kind "int" -}}
{{- if not (regexMatch `^[0-9]+$` $s) -}}
{{- fail (printf "%s: %q is not a whole number; use digits only" $path $s) -}}
{{- end -}}
{{- if lt (atoi $s) (int $spec.min) -}}
{{- fail (printf "%s: %s is below the minimum %d; use %d or more" $path $s (int $spec.min) (int $spec.min)) -}}
{{- end -}}
{{- else if eq $spec.kind "path" -}}
{{- include "slinkykit.enroot.pathValue" (list $path $s) -}}
{{- if and $spec.pinned (ne $s $spec.pinned) -}}
{{- fail (printf "%s: must be %s (the path the Slinky images install); remove the key" $path $spec.pinned) -}}
{{- end -}}
{{- else if eq $spec.kind "program" -}}
{{- if not (regexMatch `^[A-Za-z0-9_./+-]+$` $s) -}}
{{- fail (printf "%s: %q is not a plain command name or path; use only letters, digits and _ . / + -" $path $s) -}}
{{- end -}}
{{- else if eq $spec.kind "options" -}}
{{- if not (regexMatch `^[A-Za-z0-9_.,=+:/-]+( [A-Za-z0-9_.,=+:/-]+)*$` $s) -}}
{{- fail (printf "%s: %q is not a list of option words; separate words by single spaces and use only letters, digits and _ . , = + : / -" $path $s) -}}
{{- end -}}
{{- if regexMatch `^-[neE]+( |$)` $s -}}
{{- fail (printf "%s: %q starts with an option echo would swallow; put another option first" $path $s) -}}
{{- end -}}
{{- else -}}
{{- if not (regexMatch `^[A-Za-z0-9_./@%+:,=-]+$` $s) -}}
{{- fail (printf "%s: %q has characters Enroot's shell would expand, split or execute; use only letters, digits and _ . / @ %% + : , = -" $path $s) -}}
{{- end -}}
{{- end -}}
{{- $s -}}
{{- end -}}
{{- end -}}

{{- /* slinkykit.enroot.envValue: the rendered text of one enroot.env entry, or a failure; args (list key value). */ -}}
{{- define "slinkykit.enroot.envValue" -}}
{{- $key := index . 0 -}}{{- $v := index . 1 -}}
{{- $path := include "slinkykit.valuePath" (list "enroot.env" $key) -}}
{{- include "slinkykit.enroot.singleLine" (list $path $key "key") -}}
{{- if not (regexMatch `^[A-Za-z_][A-Za-z0-9_]*$` $key) -}}
{{- fail (printf "%s: %q is not a variable name Enroot keeps; use letters, digits and _ and do not start with a digit" $path $key) -}}
{{- end -}}
{{- if hasPrefix "ENROOT_" $key -}}
{{- fail (printf "%s: Enroot drops ENROOT_ variables from environ.d files; move it to enroot.config" $path) -}}
{{- end -}}
{{- if has $key (include "slinkykit.enroot.envDeniedKeys" . | fromYamlArray) -}}
{{- fail (printf "%s: setting %s here replaces the container image's value (under Pyxis ${%s} is the Slurm daemon's); set it in the image or per job instead" $path $key $key) -}}
{{- end -}}
{{- $s := include "slinkykit.enroot.scalar" (list $path $v) -}}
{{- include "slinkykit.enroot.singleLine" (list $path $s "value") -}}
{{- if regexMatch `^["'].*["']$` $s -}}
{{- fail (printf "%s: %s is wrapped in quotes, which Enroot strips; write the value without the surrounding quotes" $path $s) -}}
{{- end -}}
{{- $refs := regexFindAll `\$\{[^}]*\}?` $s -1 -}}
{{- range $ref := $refs -}}
{{- if not (regexMatch `^\$\{[A-Za-z_][A-Za-z0-9_]*\}$` $ref) -}}
{{- fail (printf "%s: %q is not a ${NAME} reference Enroot expands (it would stay literal); use ${NAME} or drop the $" $path $ref) -}}
{{- end -}}
{{- $name := trimSuffix "}" (trimPrefix "${" $ref) -}}
{{- if has $name (include "slinkykit.enroot.envDeniedRefs" $ | fromYamlArray) -}}
{{- fail (printf "%s: ${%s} resolves to the Slurm daemon's value or to empty under Pyxis, not the job's; write the value out" $path $name) -}}
{{- end -}}
{{- end -}}
{{- $s -}}
{{- end -}}

{{- /* slinkykit.enroot.file: renders one Enroot file, one KEY=VALUE line per key, sorted, ending in a newline; args (list map kind) with kind config|env. */ -}}
{{- define "slinkykit.enroot.file" -}}
{{- $m := index . 0 | default dict -}}{{- $kind := index . 1 -}}
{{- range $key := keys $m | sortAlpha -}}
{{- $v := index $m $key -}}
{{- if not (kindIs "invalid" $v) -}}
{{- printf "%s=%s\n" $key (include (printf "slinkykit.enroot.%sValue" $kind) (list $key $v)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* slinkykit.enroot.data: the ConfigMap data map {enroot.conf, 99-aicr-defaults.env}. */ -}}
{{- define "slinkykit.enroot.data" -}}
{{- $e := .Values.enroot | default dict -}}
{{- $data := dict "enroot.conf" (include "slinkykit.enroot.file" (list $e.config "config")) "99-aicr-defaults.env" (include "slinkykit.enroot.file" (list $e.env "env")) -}}
{{- include "slinkykit.toYaml" (list $data "enroot") -}}
{{- end -}}

{{- /* slinkykit.enroot.files: the files rendered from the ConfigMap, as {key, path} for mounting with subPath. */ -}}
{{- define "slinkykit.enroot.files" -}}
files:
- {key: enroot.conf, path: /etc/enroot/enroot.conf}
- {key: 99-aicr-defaults.env, path: /etc/enroot/environ.d/99-aicr-defaults.env}
{{- end -}}
