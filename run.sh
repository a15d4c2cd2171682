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
if (($(scripts/java-major "$JAVA") >= 23)); then
  # Kafka's jars still use sun.misc.Unsafe; keep JDK 24+ from warning about it on the console.
  JVM_OPTS+=(--sun-misc-unsafe-memory-access=allow)
  export MAVEN_OPTS="${MAVEN_OPTS:---sun-misc-unsafe-memory-access=allow}"
fi
if (($(scripts/java-major "$JAVA") >= 25)); then
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
exec "$JAVA" "${JVM_OPTS[@]}" -jar "$LAUNCHER" "$@"
