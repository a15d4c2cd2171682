package dev.agentrt.orchestrator.testing;

import dev.agentrt.orchestrator.security.Users;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * A user on the test's thread, as the security filters would set one, for controllers called
 * without them (MockMvc standalone).
 */
public final class SignedIn {

  private SignedIn() {}

  /** The local user of a stack without users. */
  public static void asLocalUser() {
    as(Users.LOCAL);
  }

  /** A user who is not an admin. */
  public static void as(String user) {
    SecurityContextHolder.getContext()
        .setAuthentication(
            UsernamePasswordAuthenticationToken.authenticated(
                user, null, AuthorityUtils.createAuthorityList("ROLE_USER")));
  }

  public static void signOut() {
    SecurityContextHolder.clearContext();
  }
}
