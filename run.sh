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

# Major version of a java binary: 21 for "21.0.5", 1 for "1.8.0".
java_major() {
  local major
  major=$("$1" -version 2>&1 | sed -nE '1s/.*version "([0-9]+).*/\1/p')
  echo "${major:-0}"
}

# A JDK >= 21: $JAVA_HOME, else the one of `java` on the PATH, else the newest in /usr/lib/jvm.
find_jdk() {
  local home major best="" best_major=0
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/javac" ]] &&
    (($(java_major "$JAVA_HOME/bin/java") >= 21)); then
    echo "$JAVA_HOME"
    return
  fi
  if command -v java >/dev/null; then
    home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    if [[ -x "$home/bin/javac" ]] && (($(java_major "$home/bin/java") >= 21)); then
      echo "$home"
      return
    fi
  fi
  for home in /usr/lib/jvm/*; do
    [[ -x "$home/bin/javac" ]] || continue
    major=$(java_major "$home/bin/java")
    if ((major >= 21 && major > best_major)); then
      best=$home
      best_major=$major
    fi
  done
  [[ -n "$best" ]] && echo "$best"
}

# True when a jar is missing, or a source or pom is newer than the oldest jar.
needs_build() {
  local jar oldest
  for jar in "${JARS[@]}"; do
    [[ -f "$jar" ]] || return 0
  done
  oldest=$(ls -t "${JARS[@]}" | tail -n 1)
  [[ -n "$(find pom.xml ./*/pom.xml services/*/pom.xml libs/*/pom.xml \
    ./*/src services/*/src libs/*/src -newer "$oldest" -type f -print -quit 2>/dev/null)" ]]
}

wants_help() {
  local arg
  for arg in "$@"; do
    [[ "$arg" == "-h" || "$arg" == "--help" ]] && return 0
  done
  return 1
}

if ! JAVA_HOME=$(find_jdk); then
  echo "error: ./run.sh needs a JDK 21 or newer; install one or set JAVA_HOME to it" >&2
  exit 1
fi
export JAVA_HOME
JAVA="$JAVA_HOME/bin/java"
JVM_OPTS=(-Xmx1g)
if (($(java_major "$JAVA") >= 23)); then
  # Kafka's jars still use sun.misc.Unsafe; keep JDK 24+ from warning about it on the console.
  JVM_OPTS+=(--sun-misc-unsafe-memory-access=allow)
  export MAVEN_OPTS="${MAVEN_OPTS:---sun-misc-unsafe-memory-access=allow}"
fi

if ! { wants_help "$@" && [[ -f "$LAUNCHER" ]]; } && needs_build; then
  echo "building…"
  # forceCreation: otherwise an unchanged module keeps its old executable jar, with the old
  # versions of the libraries it depends on inside.
  ./mvnw -B -q -DskipTests -Dmaven.jar.forceCreation=true package
fi

exec "$JAVA" "${JVM_OPTS[@]}" -jar "$LAUNCHER" "$@"
