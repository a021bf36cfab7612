#!/usr/bin/env bash
# Replays the Dockerfile without a Docker engine, and checks the result the way the
# image is used: build stages in clean directories, the runtime stage run as an
# unprivileged user with the Dockerfile's ENTRYPOINT, CMD, ENV and HEALTHCHECK.
#
#   bash scripts/docker-repro.sh          (after npm ci; KEEP=1 keeps the work directory)
#
# What it takes from the Dockerfile (scripts/dockerfile.ts reads it): the base image's
# Node major version (the RUN steps and the process run on that Node), every stage's
# WORKDIR, COPY, ENV, USER and RUN steps, the runtime's VOLUME, ENV, ENTRYPOINT, CMD and
# HEALTHCHECK (run exactly as written). npm steps run as written. System steps run one
# command at a time the way they act on the stage: `apt-get install` requires the package
# on this machine (tini: apt-get install tini), the account `groupadd`/`useradd` create is
# played by `nobody`, and `mkdir`, `chown`, `chmod` act on the stage's directories; a
# command it does not know fails the script, so no new Dockerfile step goes unseen.
# The ENTRYPOINT runs as PID 1 of its own PID namespace (unshare), as in a container.
# Everything listens on 127.0.0.1; everything started is stopped, and the work directory
# removed, on any exit.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
umask 022 # as for Docker's RUN steps and COPY
STARTED_AT=$SECONDS

fail() {
  printf '\ndocker-repro: FAIL: %s\n' "$*" >&2
  exit 1
}
step() { printf '\n--- %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }

TSX=$REPO/node_modules/.bin/tsx
[ -x "$TSX" ] || fail "node_modules/.bin/tsx is missing: run npm ci first"
dockerfile() { "$TSX" "$REPO/scripts/dockerfile.ts" "$REPO/Dockerfile" "$@"; }
for tool in git node npm setpriv setsid tar timeout; do
  command -v "$tool" >/dev/null || fail "$tool is not installed"
done
[ "$(id -u)" = 0 ] || fail "run as root: the daemon is started as user nobody through setpriv"
RUN_UID=$(id -u nobody) || fail "no user nobody"
RUN_GID=$(id -g nobody)

WORK=$(mktemp -d /tmp/tally-docker-repro.XXXXXX)
chmod 0755 "$WORK"
PIDS=()
# Every process it starts leads a process group of its own (setsid): the group goes, with
# whatever it started.
cleanup() {
  local pid _
  for pid in "${PIDS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for _ in $(seq 1 20); do
    local alive=0
    for pid in "${PIDS[@]}"; do kill -0 -- "-$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.25
  done
  for pid in "${PIDS[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the base image ----------------------------------------------------------------------
step "base image"
FINAL=$(dockerfile stages | tail -1)
BASE=$(dockerfile base "$FINAL")
[[ $BASE =~ ^node:([0-9]+)(-|$) ]] || fail "the runtime stage is FROM $BASE, expected node:<major>-…"
IMAGE_MAJOR=${BASH_REMATCH[1]}
LOCAL_MAJOR=$(node -p 'process.versions.node.split(".")[0]')
RUN_NODE=$(command -v node)
note "runtime stage $FINAL is FROM $BASE (Node $IMAGE_MAJOR); this machine runs Node $(node --version)"
if [ "$IMAGE_MAJOR" != "$LOCAL_MAJOR" ]; then
  # The image's Node major from the npm registry's `node` package, copied out of root's npm
  # cache to where the user nobody can run it.
  if found=$(npx -y -p "node@$IMAGE_MAJOR" -c 'command -v node' 2>/dev/null) && [ -n "$found" ]; then
    mkdir -p "$WORK/bin"
    cp "$(readlink -f "$found")" "$WORK/bin/node"
    chmod 0755 "$WORK/bin/node"
    RUN_NODE=$WORK/bin/node
    note "the stages' RUN steps and the process run on $("$RUN_NODE" --version), as in the image"
  else
    note "WARNING: Node $IMAGE_MAJOR is not available here: the stages run on Node $LOCAL_MAJOR"
  fi
fi
# RUN steps find the image's node first (npm and the tools it runs start with `env node`).
STAGE_PATH=$(dirname "$RUN_NODE"):$PATH

# --- the build context ---------------------------------------------------------------------
step "build context (the working tree's files, less .dockerignore)"
mkdir -p "$WORK/context"
dockerfile context "$REPO" >"$WORK/context.list"
tar -C "$REPO" --null -T "$WORK/context.list" -cf - | tar -C "$WORK/context" -xf -
note "$(tr -cd '\0' <"$WORK/context.list" | wc -c) files"

# --- the stages ----------------------------------------------------------------------------
# The accounts the Dockerfile creates (groupadd, useradd), one name a line; nobody plays them.
ACCOUNTS=$WORK/accounts
: >"$ACCOUNTS"
is_account() { grep -qxF -- "$1" "$ACCOUNTS"; }

# A path of a system command as the stage sees it, moved into the stage's root.
in_stage() {
  local root=$1 workdir=$2 p=$3
  case $p in /*) printf '%s' "$root$p" ;; *) printf '%s' "$root${workdir%/}/$p" ;; esac
}

# The uid (or gid) of an account of the Dockerfile: nobody's for those it creates, 0 for root.
account_id() {
  if is_account "$1"; then
    printf '%s' "$2"
  elif [ "$1" = root ] || [ "$1" = 0 ]; then
    printf 0
  else
    return 1
  fi
}

# A user[:group] of chown as numeric ids.
owner_id() {
  local out
  out=$(account_id "${1%%:*}" "$RUN_UID") || return 1
  if [[ $1 == *:* ]]; then out+=:$(account_id "${1#*:}" "$RUN_GID") || return 1; fi
  printf '%s' "$out"
}

# Carries out one RUN that is no npm command, one `&&`-joined command at a time.
system_step() {
  local root=$1 workdir=$2 cmd=$3 part word mode
  local -a words args
  if [[ $cmd =~ (\;|\|\||\||\$\(|\`) ]]; then fail "RUN $cmd: only commands joined by && are understood"; fi
  while IFS= read -r part; do
    read -r -a words <<<"$part"
    [ ${#words[@]} -gt 0 ] || continue
    case ${words[0]} in
    apt-get)
      case ${words[1]:-} in
      update) note "  apt-get update: nothing to do" ;;
      install)
        for word in "${words[@]:2}"; do
          [[ $word == -* ]] && continue
          dpkg -s "$word" 2>/dev/null | grep -q '^Status: install ok installed' ||
            fail "RUN apt-get install $word: install it on this machine (apt-get install $word)"
          note "  apt-get install $word: installed here ($(command -v "$word" || echo "package $word"))"
        done
        ;;
      *) fail "RUN $part: not understood" ;;
      esac
      ;;
    rm)
      # Removes paths of the stage (absolute ones only: a relative rm would depend on the
      # WORKDIR in ways a reader of the Dockerfile does not expect).
      args=()
      for word in "${words[@]:1}"; do
        if [[ $word == -* ]]; then
          [[ $word =~ ^-[rf]+$ ]] || fail "RUN $part: rm $word is not understood"
          args+=("$word")
        elif [[ $word == /* ]] && [[ $word != *..* ]]; then
          args+=("$(in_stage "$root" "$workdir" "$word")")
        else
          fail "RUN $part: rm takes absolute paths without .. here"
        fi
      done
      # Globs (/var/lib/apt/lists/*) expand inside the stage.
      # shellcheck disable=SC2068
      rm ${args[@]}
      note "  $part"
      ;;
    groupadd | useradd)
      printf '%s\n' "${words[-1]}" >>"$ACCOUNTS"
      note "  ${words[0]} ${words[-1]}: played by nobody (uid $RUN_UID, gid $RUN_GID)"
      ;;
    mkdir)
      args=()
      for word in "${words[@]:1}"; do
        if [[ $word == -* ]]; then args+=("$word"); else args+=("$(in_stage "$root" "$workdir" "$word")"); fi
      done
      mkdir "${args[@]}"
      note "  $part"
      ;;
    chown | chmod)
      args=()
      mode=''
      for word in "${words[@]:1}"; do
        if [[ $word == -* ]]; then
          args+=("$word")
        elif [ -z "$mode" ]; then
          mode=$word
          if [ "${words[0]}" = chown ]; then
            word=$(owner_id "$mode") || fail "RUN $part: $mode is neither root nor an account the Dockerfile creates"
          fi
          args+=("$word")
        else
          args+=("$(in_stage "$root" "$workdir" "$word")")
        fi
      done
      "${words[0]}" "${args[@]}"
      if [ "${words[0]}" = chown ]; then note "  $part (as $(owner_id "$mode"))"; else note "  $part"; fi
      ;;
    *) fail "RUN $part: $(printf '%q' "${words[0]}") is a system command this script does not know; teach system_step" ;;
    esac
  done < <(printf '%s\n' "$cmd" | sed 's/ && /\n/g')
}

# The part of the official node image the Dockerfile acts on, laid into a stage's root:
# node in /usr/local/bin, npm and corepack in /usr/local/lib/node_modules with their
# commands linked from /usr/local/bin (copied from this machine's npm and corepack).
NPM_PKG=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)
COREPACK_PKG=''
if command -v corepack >/dev/null; then COREPACK_PKG=$(cd "$(dirname "$(readlink -f "$(command -v corepack)")")/.." && pwd); fi
seed_base() {
  local root=$1
  mkdir -p "$root/usr/local/bin" "$root/usr/local/lib/node_modules"
  cp "$RUN_NODE" "$root/usr/local/bin/node"
  cp -a "$NPM_PKG" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  if [ -n "$COREPACK_PKG" ]; then
    cp -a "$COREPACK_PKG" "$root/usr/local/lib/node_modules/corepack"
    ln -s ../lib/node_modules/corepack/dist/corepack.js "$root/usr/local/bin/corepack"
  fi
}

# Runs one stage's instructions in $WORK/stages/NAME (the stage's file system root), in a
# subshell so that its ENV does not reach the next stage.
run_stage() (
  local stage=$1 root=$WORK/stages/$1 workdir=/ line keyword rest user=root word
  mkdir -p "$root"
  seed_base "$root"
  export PATH=$STAGE_PATH
  while IFS= read -r line; do
    keyword=${line%% *}
    rest=${line#* }
    case $keyword in
    WORKDIR)
      case $rest in /*) workdir=$rest ;; *) workdir=$workdir/$rest ;; esac
      mkdir -p "$root$workdir"
      ;;
    ENV)
      while IFS= read -r -d '' pair; do export "${pair?}"; done < <(dockerfile parse-env "$rest")
      ;;
    COPY) copy_step "$root" "$workdir" "$rest" ;;
    RUN)
      local cmd
      cmd=$(dockerfile run-args "$rest")
      if [[ $cmd =~ ^npm[[:space:]] ]] && ! [[ $cmd =~ (\;|\|\||\|) ]] &&
        [ -z "$(printf '%s' "$cmd" | sed 's/ && /\n/g' | grep -v '^npm ' || true)" ]; then
        note "RUN $cmd"
        (cd "$root$workdir" && timeout 900 bash -c "$cmd") || fail "stage $stage: RUN $cmd failed"
      else
        note "RUN ${cmd:0:100}$([ ${#cmd} -gt 100 ] && echo …)"
        system_step "$root" "$workdir" "$cmd"
      fi
      ;;
    USER)
      user=$rest
      for word in "${rest%%:*}" "${rest#*:}"; do
        is_account "$word" || fail "stage $stage: USER $rest: $word is no account the Dockerfile creates"
      done
      note "USER $rest: nobody from here on"
      ;;
    *) ;;
    esac
  done < <(dockerfile steps "$stage")
  printf '%s\n' "$workdir" >"$WORK/stages/$stage.workdir"
  printf '%s\n' "$user" >"$WORK/stages/$stage.user"
)

# COPY [--from=STAGE] [--chown=USER[:GROUP]] [--link] SRC… DEST, with Docker's rules: a
# directory's contents are copied, several sources (or a DEST ending in /) go into the
# directory DEST; files belong to root unless --chown says otherwise.
copy_step() {
  local root=$1 workdir=$2 from='' owner=0:0 word
  local -a words srcs=()
  read -r -a words <<<"$3"
  for word in "${words[@]}"; do
    case $word in
    --from=*) from=${word#--from=} ;;
    --chown=*) owner=$(owner_id "${word#--chown=}") || fail "COPY $3: ${word#--chown=} is no account the Dockerfile creates" ;;
    --link) ;;
    --*) fail "COPY $3: $word is not understood" ;;
    *) srcs+=("$word") ;;
    esac
  done
  local dest=${srcs[-1]}
  unset 'srcs[-1]'
  dest=${dest#./}
  case $dest in /*) ;; *) dest=${workdir%/}/$dest ;; esac
  local into=0
  if [[ $dest == */ ]] || [ ${#srcs[@]} -gt 1 ]; then into=1; fi
  local base=$WORK/context src path
  [ -n "$from" ] && base=$WORK/stages/$from
  note "COPY ${from:+--from=$from }${srcs[*]} $dest"
  for src in "${srcs[@]}"; do
    path=$base/${src#/}
    [ -e "$path" ] || fail "COPY: $src is not in the ${from:-build context}${from:+ stage} (check .dockerignore)"
    if [ -d "$path" ]; then
      mkdir -p "$root$dest"
      cp -a "$path/." "$root$dest/"
      (cd "$path" && find . -mindepth 1 -print0) | (cd "$root$dest" && xargs -0r chown -h "$owner")
    elif [ $into = 1 ]; then
      mkdir -p "$root$dest"
      cp -a "$path" "$root$dest/"
      chown "$owner" "$root$dest/$(basename "$path")"
    else
      mkdir -p "$(dirname "$root$dest")"
      cp -a "$path" "$root$dest"
      chown "$owner" "$root$dest"
    fi
  done
}

for stage in $(dockerfile stages); do
  step "stage $stage (FROM $(dockerfile base "$stage"))"
  run_stage "$stage"
done
RT=$WORK/stages/$FINAL
APP=$RT$(cat "$WORK/stages/$FINAL.workdir")
RUNTIME_USER=$(cat "$WORK/stages/$FINAL.user")
[ "$RUNTIME_USER" != root ] || fail "the runtime stage runs as root: it needs a USER"

step "the runtime stage holds production dependencies only"
[ -f "$APP/dist/main.js" ] || fail "dist/main.js is not in the runtime stage"
[ -f "$APP/schema/tally.schema.json" ] || fail "schema/tally.schema.json is not in the runtime stage"
dev=$(cd "$APP" && node -e '
  const fs = require("node:fs");
  const dev = Object.keys(require("./package.json").devDependencies ?? {});
  console.log(dev.filter((d) => fs.existsSync("node_modules/" + d)).join(" "));')
[ -z "$dev" ] || fail "development packages in the runtime stage: $dev"
note "no devDependencies in node_modules; dist/ and schema/ present"

step "the runtime stage has node and no package manager"
[ -x "$RT/usr/local/bin/node" ] || fail "the runtime stage lost /usr/local/bin/node"
for p in /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
  /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack; do
  if [ -e "$RT$p" ] || [ -L "$RT$p" ]; then fail "the runtime stage still has $p"; fi
done
[ -d "$WORK/stages/$(dockerfile stages | head -1)/usr/local/lib/node_modules/npm" ] ||
  fail "the build stage lost npm: the seeded base image is not what the stages act on"
note "/usr/local/bin/node only: npm, npx, corepack and their packages removed"

# --- running it ----------------------------------------------------------------------------
free_port() { node -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
# GET URL: prints the status, a newline and the body (status 0 when nothing answers).
get() {
  node -e 'fetch(process.argv[1]).then(async(r)=>console.log(r.status+"\n"+await r.text()),()=>console.log(0))' "$1"
}
# Waits until GET URL answers 200 with a body matching REGEX, or fails after SECONDS.
wait_for() {
  local url=$1 regex=$2 seconds=$3 what=$4 pid=$5 out=''
  local deadline=$((SECONDS + seconds))
  while [ $SECONDS -lt $deadline ]; do
    kill -0 "$pid" 2>/dev/null || fail "$what: the process exited (log: $WORK/$what.log)$(printf '\n'; tail -20 "$WORK/$what.log")"
    out=$(get "$url")
    if [ "${out%%$'\n'*}" = 200 ] && grep -Eq "$regex" <<<"$out"; then return 0; fi
    sleep 0.5
  done
  fail "$what: $url did not answer 200 with /$regex/ within ${seconds}s (last: ${out:0:300})$(printf '\n'; tail -20 "$WORK/$what.log")"
}

# The image's command line with ARGS instead of CMD (or CMD without ARGS), as `docker run
# IMAGE [ARGS]` runs it: node is the image's Node, a path the stage has is the stage's, and
# any other absolute path (/usr/bin/tini) is this machine's, installed by the apt-get step.
mapfile -d '' ENTRYPOINT < <(dockerfile exec "$FINAL" entrypoint)
mapfile -d '' CMD < <(dockerfile exec "$FINAL" cmd)
[ ${#ENTRYPOINT[@]} -gt 0 ] || fail "the runtime stage has no ENTRYPOINT"
image_command() {
  local -a line=("${ENTRYPOINT[@]}") out=()
  if [ $# -gt 0 ]; then line+=("$@"); else line+=("${CMD[@]}"); fi
  local arg
  for arg in "${line[@]}"; do
    if [ "$arg" = node ]; then
      # The image's node, in the stage (the base image's /usr/local/bin/node).
      arg=$RT/usr/local/bin/node
    elif [[ $arg == /* ]] && [ -e "$RT$arg" ]; then
      arg=$RT$arg
    elif [[ $arg == /* ]] && [ "$arg" = "${line[0]}" ] && ! [ -x "$arg" ]; then
      fail "the ENTRYPOINT's $arg is neither in the stage nor on this machine"
    fi
    out+=("$arg")
  done
  printf '%s\0' "${out[@]}"
}

# The ENTRYPOINT is PID 1 of a PID namespace of its own, as in a container, where the
# machine allows it.
PIDNS=()
if unshare --pid --fork --kill-child true 2>/dev/null; then
  PIDNS=(unshare --pid --fork --kill-child)
else
  note "WARNING: no PID namespace here (unshare --pid failed): the ENTRYPOINT does not run as PID 1"
fi

# The pid of a child of PID (the first found), waiting up to 10 s for it to appear.
child_of() {
  local parent=$1 f stat ppid _
  for _ in $(seq 1 100); do
    for f in /proc/[0-9]*/stat; do
      stat=$(cat "$f" 2>/dev/null) || continue
      read -r _ ppid _ <<<"${stat##*) }"
      if [ "$ppid" = "$parent" ]; then
        f=${f#/proc/}
        printf '%s' "${f%/stat}"
        return 0
      fi
    done
    sleep 0.1
  done
  return 1
}
uid_of() { awk '/^Uid:/ { print $2 }' "/proc/$1/status"; }
# The name of the program a process runs (its comm may be a thread's name).
program_of() { basename "$(readlink "/proc/$1/exe")"; }

# The runtime stage's environment, its config and state paths moved into the stage.
declare -A IMAGE_ENV=()
while IFS= read -r -d '' pair; do IMAGE_ENV[${pair%%=*}]=${pair#*=}; done < <(dockerfile envs "$FINAL")
CONFIG_IN_IMAGE=${IMAGE_ENV[TALLY_CONFIG]:-}
[ -n "$CONFIG_IN_IMAGE" ] || fail "the runtime stage sets no TALLY_CONFIG"
STATE_IN_IMAGE=$(dockerfile volumes "$FINAL" | head -1)
[ -n "$STATE_IN_IMAGE" ] || fail "the runtime stage declares no VOLUME for the state directory"
# A config without state.dir (as a stranger writes one) must land in the volume.
[ "${IMAGE_ENV[TALLY_STATE_DIR]:-}" = "$STATE_IN_IMAGE" ] ||
  fail "the runtime stage's TALLY_STATE_DIR (${IMAGE_ENV[TALLY_STATE_DIR]:-unset}) is not its VOLUME $STATE_IN_IMAGE"
SIM_PORT=$(free_port)
TALLY_PORT=$(free_port)
CLOSED_PORT=$(free_port)
image_env() {
  local k
  # The image's PATH, in the stage: its /usr/local/bin has node and nothing else, so a
  # tally that shelled out to npm or npx would fail here as in the image.
  printf '%s\0' "PATH=$RT/usr/local/bin" "HOME=/nonexistent"
  for k in "${!IMAGE_ENV[@]}"; do
    case $k in
    TALLY_CONFIG) printf '%s\0' "TALLY_CONFIG=$RT$CONFIG_IN_IMAGE" ;;
    TALLY_STATE_DIR) printf '%s\0' "TALLY_STATE_DIR=$RT${IMAGE_ENV[TALLY_STATE_DIR]}" ;;
    TALLY_PORT) printf '%s\0' "TALLY_PORT=$TALLY_PORT" ;;
    *) printf '%s\0' "$k=${IMAGE_ENV[$k]}" ;;
    esac
  done
}
mapfile -d '' ENV_LINE < <(image_env)
# Starts the image's command as nobody, in the background, in a session (and process
# group) of its own. Sets STARTED to the pid to wait for and INIT to the pid of the
# ENTRYPOINT's process (PID 1 in its namespace), the one `docker kill -s SIGNAL` signals.
# With READ_ONLY=1, as `docker run --read-only` (or Kubernetes' readOnlyRootFilesystem):
# in a mount namespace of its own, the stage's root and /tmp are read-only and only the
# state VOLUME is writable.
start() {
  local name=$1
  shift
  local -a cmd ro=()
  mapfile -d '' cmd < <(image_command "$@")
  if [ "${READ_ONLY:-0}" = 1 ]; then
    # The volume first, a mount of its own; the recursive read-only binds above it keep it
    # as a writable submount (a bind made inside a read-only mount would be read-only).
    ro=(unshare --mount --propagation private sh -c '
      mount --bind "$2" "$2" || exit 1
      for d in "$1" /tmp; do mount --rbind "$d" "$d" && mount -o remount,bind,ro "$d" || exit 1; done
      shift 2
      exec "$@"' read-only "$RT" "$STATE")
  fi
  note "as nobody${PIDNS[*]:+, PID 1 of a new PID namespace}${ro[*]:+, read-only root and /tmp}: ${cmd[*]}"
  (cd "$APP" && exec setsid "${PIDNS[@]}" "${ro[@]}" setpriv --reuid="$RUN_UID" --regid="$RUN_GID" --clear-groups -- \
    env -i "${ENV_LINE[@]}" "${cmd[@]}") >"$WORK/$name.log" 2>&1 &
  STARTED=$!
  PIDS+=("$STARTED")
  if [ ${#PIDNS[@]} -gt 0 ]; then
    INIT=$(child_of "$STARTED") || fail "$name: unshare started no process"
  else
    INIT=$STARTED
  fi
}

step "config and state directory"
STATE=$RT$STATE_IN_IMAGE
# Docker creates a volume's directory (owned by root) when the image has none.
[ -d "$STATE" ] || mkdir -p "$STATE"
note "the VOLUME $STATE_IN_IMAGE, as the Dockerfile leaves it: owner $(stat -c '%U (%u)' "$STATE"), mode $(stat -c %a "$STATE")"
[ "$(stat -c %u "$STATE")" = "$RUN_UID" ] || fail "the VOLUME $STATE_IN_IMAGE does not belong to the USER ($RUNTIME_USER)"
# The config is a bind mount (Docker creates the directory when the image has none), the
# token a secret file next to it that only tally's user reads.
mkdir -p "$(dirname "$RT$CONFIG_IN_IMAGE")"
printf 'demo-token\n' >"$(dirname "$RT$CONFIG_IN_IMAGE")/demo-token"
chown "$RUN_UID:$RUN_GID" "$(dirname "$RT$CONFIG_IN_IMAGE")/demo-token"
chmod 0400 "$(dirname "$RT$CONFIG_IN_IMAGE")/demo-token"
cat >"$RT$CONFIG_IN_IMAGE" <<EOF
# written by scripts/docker-repro.sh: no state.dir, as a first config is written; the
# image's TALLY_STATE_DIR puts the state in its volume ($STATE_IN_IMAGE)
upstream:
  base_url: http://127.0.0.1:$SIM_PORT
orgs:
  - slug: demo
    token_file: demo-token
intervals: { org: 5s, team: 5s, subscription: 5s, channels: 1s, live_sessions: 1s, live_detail: 2s, sweep: 10s }
server:
  listen: 127.0.0.1:$TALLY_PORT
log:
  level: info
  format: json
EOF
chmod 0644 "$RT$CONFIG_IN_IMAGE"
note "TALLY_CONFIG=$CONFIG_IN_IMAGE → $RT$CONFIG_IN_IMAGE; TALLY_STATE_DIR $STATE_IN_IMAGE → $STATE"

step "the simulator from the same build: <image> sim --port $SIM_PORT"
start sim sim --port "$SIM_PORT" --org demo --seed 3 --channels 4 --sessions 3
SIM_PID=$STARTED
SIM_INIT=$INIT
wait_for "http://127.0.0.1:$SIM_PORT/_sim/status" 'demo' 30 sim "$SIM_PID"

step "tally with the image's CMD (${CMD[*]}), on a read-only root file system"
READ_ONLY=1 start tally
TALLY_PID=$STARTED
TALLY_INIT=$INIT
wait_for "http://127.0.0.1:$TALLY_PORT/-/healthy" 'healthy' 30 tally "$TALLY_PID"
note "/-/healthy answers 200"
# The ENTRYPOINT's process and, under tini, its child node: both unprivileged.
procs=("$TALLY_INIT")
if [[ ${ENTRYPOINT[0]} == */tini ]]; then
  [ "$(program_of "$TALLY_INIT")" = tini ] || fail "the ENTRYPOINT's process is $(program_of "$TALLY_INIT"), not tini"
  node_pid=$(child_of "$TALLY_INIT") || fail "tini started no child"
  [ "$(program_of "$node_pid")" = node ] || fail "tini's child is $(program_of "$node_pid"), not node"
  procs+=("$node_pid")
fi
for pid in "${procs[@]}"; do
  uid=$(uid_of "$pid")
  [ "$uid" = "$RUN_UID" ] || fail "$(program_of "$pid") runs as uid $uid, expected $RUN_UID (nobody)"
done
if [ ${#PIDNS[@]} -gt 0 ]; then
  ns_pid=$(awk '/^NSpid:/ { print $NF }' "/proc/$TALLY_INIT/status")
  [ "$ns_pid" = 1 ] || fail "the ENTRYPOINT's process is pid $ns_pid in its namespace, not 1"
fi
note "$(for pid in "${procs[@]}"; do printf '%s ' "$(program_of "$pid")"; done)run as uid $RUN_UID (nobody)${PIDNS[*]:+; $(program_of "$TALLY_INIT") is PID 1}"
wait_for "http://127.0.0.1:$TALLY_PORT/metrics" '(^|[[:space:]])tally_build_info\{' 30 tally "$TALLY_PID"
wait_for "http://127.0.0.1:$TALLY_PORT/metrics" 'tally_up\{org="demo"\} 1' 30 tally "$TALLY_PID"
note "/metrics has tally_build_info and tally_up{org=\"demo\"} 1 (the token was read from its file)"
wait_for "http://127.0.0.1:$TALLY_PORT/-/ready" 'ready' 30 tally "$TALLY_PID"
note "/-/ready answers 200"

step "the HEALTHCHECK, as the Dockerfile writes it"
mapfile -d '' HEALTHCHECK < <(dockerfile exec "$FINAL" healthcheck)
[ ${#HEALTHCHECK[@]} -gt 0 ] || fail "the runtime stage has no HEALTHCHECK"
HC_TIMEOUT=$(dockerfile healthcheck-options "$FINAL" | sed -n 's/^timeout=//p')
HC_TIMEOUT=${HC_TIMEOUT:-30s}
[ "${HEALTHCHECK[0]}" = node ] && HEALTHCHECK[0]=$RT/usr/local/bin/node
note "${HEALTHCHECK[*]} (timeout $HC_TIMEOUT)"
healthcheck() {
  local port=$1
  (cd "$APP" && timeout "$HC_TIMEOUT" setpriv --reuid="$RUN_UID" --regid="$RUN_GID" --clear-groups -- \
    env -i "${ENV_LINE[@]/#TALLY_PORT=*/TALLY_PORT=$port}" "${HEALTHCHECK[@]}")
}
healthcheck "$TALLY_PORT" || fail "the HEALTHCHECK failed against the running tally (exit $?)"
note "exit 0 against tally"
if healthcheck "$CLOSED_PORT"; then fail "the HEALTHCHECK passed against a port nobody listens on"; fi
note "exit non-zero against a closed port"

step "state written by the unprivileged user"
wait_for "http://127.0.0.1:$TALLY_PORT/api/v1/status" '"ready":true' 10 tally "$TALLY_PID"
for _ in $(seq 1 20); do [ -f "$STATE/snapshots/demo.json" ] && break; sleep 0.5; done
[ -f "$STATE/snapshots/demo.json" ] || fail "no snapshot in $STATE/snapshots after the first reads"
owner=$(stat -c %u "$STATE/snapshots/demo.json")
[ "$owner" = "$RUN_UID" ] || fail "the snapshot belongs to uid $owner, expected $RUN_UID"
note "$STATE_IN_IMAGE/snapshots/demo.json written, owner nobody"
# The WORKDIR stays root's: the state goes to the VOLUME because the user cannot write
# anywhere else, not by luck.
[ "$(stat -c %u "$APP")" = 0 ] || fail "the WORKDIR $APP belongs to uid $(stat -c %u "$APP"), expected root"
if setpriv --reuid="$RUN_UID" --regid="$RUN_GID" --clear-groups -- test -w "$APP"; then
  fail "the WORKDIR $APP is writable by the image's user"
fi
[ ! -e "$APP/.tally-state" ] || fail "a state directory appeared in the WORKDIR ($APP/.tally-state)"
note "WORKDIR owned by root, not writable by the image's user, no state in it"

step "SIGHUP reloads the config"
kill -HUP "$TALLY_INIT"
for _ in $(seq 1 20); do grep -q '"msg":"config reloaded"' "$WORK/tally.log" && break; sleep 0.5; done
grep -q '"msg":"config reloaded"' "$WORK/tally.log" || fail "no 'config reloaded' log line after SIGHUP$(printf '\n'; tail -20 "$WORK/tally.log")"
kill -0 "$TALLY_PID" 2>/dev/null || fail "tally exited on SIGHUP"
note "log says config reloaded; still running"

step "SIGTERM stops it cleanly"
kill -TERM "$TALLY_INIT"
rc=0
for _ in $(seq 1 40); do kill -0 "$TALLY_PID" 2>/dev/null || break; sleep 0.5; done
kill -0 "$TALLY_PID" 2>/dev/null && fail "tally still runs 20 s after SIGTERM"
wait "$TALLY_PID" || rc=$?
[ "$rc" = 0 ] || fail "tally exited $rc after SIGTERM, expected 0$(printf '\n'; tail -20 "$WORK/tally.log")"
grep -q '"msg":"stopped"' "$WORK/tally.log" || fail "tally's log has no 'stopped' line$(printf '\n'; tail -20 "$WORK/tally.log")"
note "exit 0, log says stopped"
if grep -q 'EROFS\|read-only file system' "$WORK/tally.log"; then
  fail "tally tried to write outside its state directory on the read-only root$(printf '\n'; grep -m5 'EROFS\|read-only file system' "$WORK/tally.log")"
fi
note "no write outside the state VOLUME on the read-only root file system"
kill -TERM "$SIM_INIT"
for _ in $(seq 1 20); do kill -0 "$SIM_PID" 2>/dev/null || break; sleep 0.5; done
kill -0 "$SIM_PID" 2>/dev/null && fail "the simulator still runs 10 s after SIGTERM"
wait "$SIM_PID" || true

printf '\ndocker-repro: OK (%s on Node %s, as uid %s, in %ss)\n' "$BASE" "$("$RUN_NODE" --version)" "$RUN_UID" \
  "$((SECONDS - STARTED_AT))"
