{{- /*
slinkykit.enroot.knownKeys: the only place that lists what Enroot reads from enroot.conf
(checked against upstream enroot: enroot.in and conf/enroot.conf.in). Kinds:
  bool     yes/no/true/false/y/n (any case) or a YAML boolean; rendered yes/no
  int      digits only; min: lowest accepted value
  path     absolute path, or one starting with ${HOME}; pinned: the only accepted value
  program  a command name or path
  options  space-separated option words
Non-ENROOT keys Enroot also reads are matched by slinkykit.enroot.otherKeys.
*/ -}}
{{- define "slinkykit.enroot.knownKeys" -}}
ENROOT_LIBRARY_PATH: {kind: path, pinned: /usr/lib/enroot}
ENROOT_SYSCONF_PATH: {kind: path, pinned: /etc/enroot}
ENROOT_RUNTIME_PATH: {kind: path}
ENROOT_CONFIG_PATH: {kind: path}
ENROOT_CACHE_PATH: {kind: path}
ENROOT_DATA_PATH: {kind: path}
ENROOT_TEMP_PATH: {kind: path}
ENROOT_GZIP_PROGRAM: {kind: program}
ENROOT_ZSTD_OPTIONS: {kind: options}
ENROOT_SQUASH_OPTIONS: {kind: options}
ENROOT_ROOTFS_WRITABLE: {kind: bool}
ENROOT_NATIVE_OVERLAYFS: {kind: bool}
ENROOT_REMAP_ROOT: {kind: bool}
ENROOT_UNSHARE_NET: {kind: bool}
ENROOT_UNSHARE_PID: {kind: bool}
ENROOT_UNSHARE_IPC: {kind: bool}
ENROOT_UNSHARE_UTS: {kind: bool}
ENROOT_MAX_PROCESSORS: {kind: int, min: 1}
ENROOT_MAX_CONNECTIONS: {kind: int, min: 1}
ENROOT_CONNECT_TIMEOUT: {kind: int, min: 0}
ENROOT_TRANSFER_TIMEOUT: {kind: int, min: 0}
ENROOT_TRANSFER_RETRIES: {kind: int, min: 0}
ENROOT_LOGIN_SHELL: {kind: bool}
ENROOT_ALLOW_SUPERUSER: {kind: bool}
ENROOT_ALLOW_HTTP: {kind: bool}
ENROOT_BUNDLE_ALL: {kind: bool}
ENROOT_BUNDLE_CHECKSUM: {kind: bool}
ENROOT_MOUNT_HOME: {kind: bool}
ENROOT_RESTRICT_DEV: {kind: bool}
ENROOT_FORCE_OVERRIDE: {kind: bool}
{{- end -}}

{{- /* slinkykit.enroot.otherKeys: non-ENROOT keys enroot.conf accepts, as regex -> kind. */ -}}
{{- define "slinkykit.enroot.otherKeys" -}}
'^NVIDIA_[A-Z0-9_]+$': word
'^MELLANOX_[A-Z0-9_]+$': word
'^SSL_CERT_(DIR|FILE)$': path
'^(all|no|http|https)_proxy$': word
{{- end -}}

{{- /* slinkykit.enroot.envDeniedKeys: environ.d keys that would replace, not extend, the image's value under Pyxis. */ -}}
{{- define "slinkykit.enroot.envDeniedKeys" -}}
[PATH, LD_LIBRARY_PATH, LD_PRELOAD]
{{- end -}}

{{- /* slinkykit.enroot.envDeniedRefs: ${NAME} references that resolve to slurmstepd's value or empty under Pyxis. */ -}}
{{- define "slinkykit.enroot.envDeniedRefs" -}}
[PATH, LD_LIBRARY_PATH, LD_PRELOAD, SLURM_PROCID, SLURM_LOCALID, SLURM_TASK_PID, PMIX_RANK, PMI_FD]
{{- end -}}
