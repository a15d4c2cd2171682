package dev.agentrt.orchestrator.security;

import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The user a request is made by, as the security filters established it: an API key's user, a JWT's
 * subject, or {@link Users#LOCAL} when the orchestrator runs without users.
 *
 * @param admin may read every chat
 */
public record CurrentUser(String name, boolean admin) {

  /** The user of the request on this thread; the filters let no request in without one. */
  public static CurrentUser get() {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    if (authentication == null || authentication.getName() == null) {
      throw new IllegalStateException("no user on this request");
    }
    boolean admin =
        authentication.getAuthorities().stream()
            .anyMatch(a -> Users.ROLE_ADMIN.equals(a.getAuthority()));
    return new CurrentUser(authentication.getName(), admin);
  }
}
