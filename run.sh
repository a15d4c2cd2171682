#!/usr/bin/env bash
# Runs the whole product on this machine: a Kafka broker, a MongoDB-protocol server and the six
# services, with no Docker. Builds the jars first when needed. ./run.sh --help lists the options.
set -euo pipefail
cd "$(dirname "$0")"

LAUNCHER=local-stack/target/local-stack.jar
JARS=("$LAUNCHER")
for service in orchestrator agent-init agent-loop tool-runner finalizer notifier; do
  JARS+=("services/$service/target/$service.jar")
done

wants_help() {
  local arg
  for arg in "$@"; do
    [[ "$arg" == "-h" || "$arg" == "--help" ]] && return 0
  done
  return 1
}

JAVA_HOME=$(scripts/find-jdk) || exit 1
export JAVA_HOME
JAVA="$JAVA_HOME/bin/java"
# Kafka and MongoDB run in this JVM: a small heap that grows as they need it and shrinks after
# (455 → 407 MiB resident at rest, benchmark scenario 9).
JVM_OPTS=(-Xmx1g -XX:+UseSerialGC -Xms16m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30)
JAVA_MAJOR=$(scripts/java-major "$JAVA")
if ((JAVA_MAJOR >= 23)); then
  # Kafka's jars still use sun.misc.Unsafe; keep JDK 24+ from warning about it on the console.
  JVM_OPTS+=(--sun-misc-unsafe-memory-access=allow)
  export MAVEN_OPTS="${MAVEN_OPTS:---sun-misc-unsafe-memory-access=allow}"
fi
if ((JAVA_MAJOR >= 25)); then
  # 4 bytes fewer per object (JEP 519): Kafka's and MongoDB's heap and class metadata.
  JVM_OPTS+=(-XX:+UseCompactObjectHeaders)
fi

if ! { wants_help "$@" && [[ -f "$LAUNCHER" ]]; } && scripts/needs-build "${JARS[@]}"; then
  echo "building…"
  ./mvnw -B -q -DskipTests package
fi

if [[ "${1:-}" == "--replay-dead-letters" ]]; then
  # Not the stack: puts dead letters back on their original topics (see --replay-dead-letters --help).
  shift
  exec "$JAVA" "${JVM_OPTS[@]}" -cp "$LAUNCHER" dev.agentrt.localstack.DeadLetterReplay "$@"
fi
if ((JAVA_MAJOR < 25)) || wants_help "$@"; then
  exec "$JAVA" "${JVM_OPTS[@]}" -jar "$LAUNCHER" "$@"
fi

# JDK 25+: the launcher's classes (Kafka's and MongoDB's) come from an AOT cache (JEP 483, 514) that
# its first run after a build writes as it stops: Kafka and MongoDB are up in 2 s instead of 4. The
# JVM writes it under a name of its own, kept only when the JVM stopped by itself; one older than the
# launcher's jar is deleted, and so is what another JDK wrote. (The services' JVM has a cache of its
# own: FastStartJar.)
JDK_VERSION=$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"$/\1/p' "$JAVA_HOME/release" 2>/dev/null || true)
CACHE="local-stack/target/launcher-jdk-${JDK_VERSION:-$JAVA_MAJOR}.aot"
# Quiet: the JDK's notes on classes left out of a cache, on a cache it cannot map and, on every later
# start, on code stubs saved under other names (three warnings): every tag set with aot or cds.
QUIET_AOT="-Xlog:aot*=off,cds*=off"
for written in local-stack/target/launcher-jdk-*; do
  if [[ -e "$written" && "$written" != "$CACHE"* ]]; then
    rm -f "$written"
  fi
done
if [[ -f "$CACHE" && "$CACHE" -ot "$LAUNCHER" ]]; then
  rm -f "$CACHE"
fi
if [[ -f "$CACHE" ]]; then
  exec "$JAVA" "${JVM_OPTS[@]}" -XX:AOTCache="$CACHE" "$QUIET_AOT" -jar "$LAUNCHER" "$@"
fi
WRITING="$CACHE.writing.$$"
# What the JVM prints as it writes the cache (no -Xlog option silences it) becomes one line.
NOTES=(-u -E
  -e "/^Temporary AOTConfiguration/c writing the launcher's start-up cache for the next start…"
  -e '/^(Launching child process|Picked up JAVA_TOOL_OPTIONS|Reading AOTConfiguration|AOTCache creation|Removed temporary AOT)/d')
"$JAVA" "${JVM_OPTS[@]}" -XX:AOTCacheOutput="$WRITING" "$QUIET_AOT" -jar "$LAUNCHER" "$@" \
  > >(trap '' INT && exec sed "${NOTES[@]}") 2> >(trap '' INT && exec sed "${NOTES[@]}" >&2) &
launcher=$!
# Not exec'd, so Ctrl-C and SIGTERM reach this shell: pass them on, as a stop.
trap 'kill -TERM "$launcher" 2>/dev/null || true' INT TERM HUP
while :; do
  status=0
  wait "$launcher" || status=$?
  # A signal passed on ends the wait early: wait again while the launcher still stops.
  kill -0 "$launcher" 2>/dev/null || break
done
if ((status == 0 || status == 130 || status == 143)) && [[ -f "$WRITING" ]]; then
  mv -f "$WRITING" "$CACHE"
else
  rm -f "$WRITING"
fi
exit "$status"
