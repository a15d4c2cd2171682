# One image recipe for all six services. Build one of them with:
#   docker build --build-arg SERVICE=orchestrator --build-arg PORT=8080 -t agentrt/orchestrator .
# docker-compose.yml uses this file six times, once per service.

# ---- build stage: compile the service module and the modules it depends on ----
FROM eclipse-temurin:21-jdk AS build
ARG SERVICE
# The Maven wrapper downloads Maven itself with curl (or wget).
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN test -n "${SERVICE}" || { echo "build arg SERVICE is required (e.g. --build-arg SERVICE=orchestrator)" >&2; exit 1; } \
 && chmod +x mvnw \
 && ./mvnw -B -q -ntp -DskipTests -pl "services/${SERVICE}" -am package \
 && cp "services/${SERVICE}/target/${SERVICE}.jar" /tmp/app.jar

# ---- run stage: JRE only, non-root ----
FROM eclipse-temurin:21-jre
ARG SERVICE
ARG PORT=8080
# curl is used by the compose health check (GET /actuator/health).
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system app \
 && useradd --system --gid app --home-dir /app --shell /usr/sbin/nologin app \
 && mkdir -p /app \
 && chown app:app /app
WORKDIR /app
COPY --from=build --chown=app:app /tmp/app.jar /app/app.jar
# The documents the built-in search_docs and read_doc tools work on (docs root: ./docs).
COPY --chown=app:app docs /app/docs
USER app
EXPOSE ${PORT}
ENTRYPOINT ["java", "-jar", "/app/app.jar"]
