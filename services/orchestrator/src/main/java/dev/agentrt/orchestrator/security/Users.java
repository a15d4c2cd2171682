package dev.agentrt.orchestrator.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.AuthorityUtils;

/**
 * The users the API keys name, and who is an admin. Keys are kept only as SHA-256 digests, so a
 * lookup compares digests, never the keys themselves. A malformed key list stops start-up with the
 * reason.
 */
public final class Users {

  /** The one user when no keys and no issuer are configured. */
  public static final String LOCAL = "local";

  static final String ROLE_USER = "ROLE_USER";
  static final String ROLE_ADMIN = "ROLE_ADMIN";

  // What a bearer token may hold (RFC 6750 b64token), so every key fits an Authorization header.
  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9\\-._~+/]{16,}=*");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,63}");

  private final Map<String, String> userByKeyDigest;
  private final List<String> admins;

  private Users(Map<String, String> userByKeyDigest, List<String> admins) {
    this.userByKeyDigest = userByKeyDigest;
    this.admins = admins;
  }

  static Users from(SecurityProperties properties) {
    List<String> entries = new ArrayList<>();
    if (properties.apiKeys() != null) {
      entries.addAll(List.of(properties.apiKeys().split(",")));
    }
    if (properties.apiKeysFile() != null && !properties.apiKeysFile().isBlank()) {
      try {
        Files.readAllLines(Path.of(properties.apiKeysFile().strip()), StandardCharsets.UTF_8)
            .stream()
            .filter(line -> !line.strip().startsWith("#"))
            .forEach(entries::add);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot read the API keys file " + properties.apiKeysFile(), e);
      }
    }
    Map<String, String> users = new HashMap<>();
    for (String entry : entries) {
      if (entry.isBlank()) {
        continue;
      }
      int equals = entry.indexOf('=');
      String name = equals < 0 ? "" : entry.substring(0, equals).strip();
      String key = equals < 0 ? "" : entry.substring(equals + 1).strip();
      if (!NAME.matcher(name).matches() || !KEY.matcher(key).matches()) {
        throw new IllegalArgumentException(
            "an API key entry must be name=key, the name letters, digits and ._@- and the key at"
                + " least 16 of A-Z a-z 0-9 -._~+/; got an entry for '"
                + name
                + "'");
      }
      if (name.equals(LOCAL)) {
        throw new IllegalArgumentException(
            "'" + LOCAL + "' is the user of a stack without users; give the key another name");
      }
      if (users.put(digest(key), name) != null) {
        throw new IllegalArgumentException("two users have the same API key; one is " + name);
      }
    }
    return new Users(Map.copyOf(users), properties.admins());
  }

  boolean hasKeys() {
    return !userByKeyDigest.isEmpty();
  }

  Optional<String> byKey(String key) {
    return Optional.ofNullable(userByKeyDigest.get(digest(key)));
  }

  List<GrantedAuthority> authorities(String user) {
    return admins.contains(user)
        ? AuthorityUtils.createAuthorityList(ROLE_USER, ROLE_ADMIN)
        : AuthorityUtils.createAuthorityList(ROLE_USER);
  }

  private static String digest(String key) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
