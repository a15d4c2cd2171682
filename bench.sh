#!/usr/bin/env bash
# Runs the benchmark (issue 8): starts its own Kafka, MongoDB and the six services with production
# JVM flags, a scripted fake model, runs the scenarios, prints a table and writes JSON per scenario
# to bench/target/results/. Builds the jars first when needed. ./bench.sh --help lists the options.
set -euo pipefail
cd "$(dirname "$0")"

JAVA_HOME=$(scripts/find-jdk) || exit 1
export JAVA_HOME
JAVA="$JAVA_HOME/bin/java"
# The in-memory MongoDB server keeps every run's documents in this heap: the warm-up alone stores
# 4 000 runs, and scenario 4 another 3 000; with 2 GiB the full run's scenario 4 spent its time in
# full collections.
# The bench JVM holds Kafka and the in-memory MongoDB server with every document of the run: a
# fixed heap, as database and broker JVMs run, collects it a third as often as G1 sizing it would.
JVM_OPTS=(-Xms6g -Xmx6g)
if (($(scripts/java-major "$JAVA") >= 23)); then
  # Kafka's jars still use sun.misc.Unsafe; keep JDK 24+ from warning about it.
  JVM_OPTS+=(--sun-misc-unsafe-memory-access=allow)
  export MAVEN_OPTS="${MAVEN_OPTS:---sun-misc-unsafe-memory-access=allow}"
fi

JARS=(bench/target/bench.jar)
for service in orchestrator agent-init agent-loop tool-runner finalizer notifier; do
  JARS+=("services/$service/target/$service.jar")
done
if scripts/needs-build "${JARS[@]}"; then
  echo "building…"
  ./mvnw -B -q -DskipTests package -pl bench -am
fi

exec "$JAVA" "${JVM_OPTS[@]}" -jar bench/target/bench.jar "$@"
