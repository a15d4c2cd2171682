package dev.agentrt.orchestrator.security;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Who may use the orchestrator ({@code agentrt.security.*}, see docs/security.md). With neither API
 * keys nor an OIDC issuer there is one local user and the orchestrator listens on 127.0.0.1 only.
 *
 * @param apiKeys {@code alice=<key>,bob=<key>} ({@code AGENTRT_API_KEYS})
 * @param apiKeysFile a file of {@code name=key} lines, {@code #} comments ({@code
 *     AGENTRT_API_KEYS_FILE})
 * @param oidcIssuerUri an OIDC issuer whose JWTs are accepted; the subject is the user ({@code
 *     AGENTRT_OIDC_ISSUER_URI})
 * @param oidcAudience when set, a JWT must name it in {@code aud} ({@code AGENTRT_OIDC_AUDIENCE}),
 *     so tokens the issuer made for other applications are refused
 * @param admins users who may read every chat ({@code AGENTRT_ADMINS})
 */
@ConfigurationProperties("agentrt.security")
public record SecurityProperties(
    @Nullable String apiKeys,
    @Nullable String apiKeysFile,
    @Nullable String oidcIssuerUri,
    @Nullable String oidcAudience,
    @Nullable List<String> admins) {

  public SecurityProperties {
    admins = admins == null ? List.of() : admins.stream().map(String::strip).toList();
  }

  boolean hasOidc() {
    return oidcIssuerUri != null && !oidcIssuerUri.isBlank();
  }
}
