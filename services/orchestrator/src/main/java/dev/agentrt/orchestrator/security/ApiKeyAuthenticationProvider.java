package dev.agentrt.orchestrator.security;

import org.jspecify.annotations.Nullable;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

/**
 * A bearer token that is one of the configured API keys authenticates its user. An unknown token is
 * refused, unless {@code othersFollow} (a JWT provider may know it).
 */
final class ApiKeyAuthenticationProvider implements AuthenticationProvider {

  private final Users users;
  private final boolean othersFollow;

  ApiKeyAuthenticationProvider(Users users, boolean othersFollow) {
    this.users = users;
    this.othersFollow = othersFollow;
  }

  @Override
  public @Nullable Authentication authenticate(Authentication authentication) {
    String key = ((BearerTokenAuthenticationToken) authentication).getToken();
    return users
        .byKey(key)
        .<Authentication>map(
            user ->
                UsernamePasswordAuthenticationToken.authenticated(
                    user, null, users.authorities(user)))
        .orElseGet(
            () -> {
              if (othersFollow) {
                return null;
              }
              throw new InvalidBearerTokenException("unknown API key");
            });
  }

  @Override
  public boolean supports(Class<?> authentication) {
    return BearerTokenAuthenticationToken.class.isAssignableFrom(authentication);
  }
}
