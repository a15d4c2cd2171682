package dev.agentrt.orchestrator.security;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.server.ConfigurableWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtDecoders;
import org.springframework.security.oauth2.jwt.SupplierJwtDecoder;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationProvider;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.header.writers.ReferrerPolicyHeaderWriter.ReferrerPolicy;

/**
 * Who may call what. Open to everyone: the health check, the web UI's files and the API's
 * description. Everything else needs a user: an API key or an OIDC issuer's JWT as {@code
 * Authorization: Bearer}, else {@code 401} with {@code WWW-Authenticate: Bearer}. With neither
 * configured, every request is the one {@link Users#LOCAL local user}, and the server listens on
 * 127.0.0.1 only (unless {@code server.address} says otherwise). Which chats a user may see is
 * {@code ChatAccess}'s business, not this filter's.
 */
@Configuration
@EnableConfigurationProperties(SecurityProperties.class)
class SecurityConfiguration {

  private static final Logger log = LoggerFactory.getLogger(SecurityConfiguration.class);

  private static final String[] OPEN = {
    "/",
    "/index.html",
    "/css/**",
    "/js/**",
    "/webjars/**",
    "/favicon.ico",
    "/error",
    "/actuator/health",
    "/actuator/health/**",
    "/api/openapi",
    "/api/openapi/**",
    "/swagger-ui.html",
    "/swagger-ui/**"
  };

  /**
   * The page and its scripts come from this server only; images from it or inline ({@code data:},
   * the icon), never from elsewhere, so a model's answer cannot make the page call out; no one may
   * frame it.
   */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none';"
          + " form-action 'self'; frame-ancestors 'none'";

  @Bean
  Users users(SecurityProperties properties) {
    return Users.from(properties);
  }

  /** The issuer's keys are fetched on the first token, so start-up does not need the issuer. */
  @Bean
  @ConditionalOnMissingBean
  JwtDecoder jwtDecoder(SecurityProperties properties) {
    String issuer = properties.oidcIssuerUri();
    return new SupplierJwtDecoder(
        () -> {
          if (issuer == null || issuer.isBlank()) {
            throw new IllegalStateException("no OIDC issuer is configured");
          }
          return JwtDecoders.fromIssuerLocation(issuer);
        });
  }

  @Bean
  SecurityFilterChain api(
      HttpSecurity http,
      Users users,
      SecurityProperties properties,
      ObjectProvider<JwtDecoder> jwtDecoder)
      throws Exception {
    http.csrf(csrf -> csrf.disable()) // no cookies: a browser sends no credentials by itself
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .requestCache(cache -> cache.disable())
        .headers(
            headers ->
                headers
                    .contentSecurityPolicy(csp -> csp.policyDirectives(CONTENT_SECURITY_POLICY))
                    .referrerPolicy(
                        referrer ->
                            referrer.policy(ReferrerPolicy.NO_REFERRER))); // + nosniff, DENY
    boolean oidc = properties.hasOidc();
    if (!users.hasKeys() && !oidc) {
      log.info("no API keys and no OIDC issuer: one local user, listening on 127.0.0.1 only");
      return http.anonymous(
              anonymous ->
                  anonymous
                      .principal(Users.LOCAL)
                      .authorities(Users.ROLE_USER, Users.ROLE_ADMIN)
                      .key("local"))
          .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
          .build();
    }
    List<AuthenticationProvider> providers = new ArrayList<>();
    if (users.hasKeys()) {
      providers.add(new ApiKeyAuthenticationProvider(users, oidc));
    }
    if (oidc) {
      JwtAuthenticationProvider jwt = new JwtAuthenticationProvider(jwtDecoder.getObject());
      jwt.setJwtAuthenticationConverter(
          token -> {
            String user = jwtUser(token, properties.oidcAudience());
            return new JwtAuthenticationToken(token, users.authorities(user), user);
          });
      providers.add(jwt);
    }
    AuthenticationManager manager = new ProviderManager(providers);
    return http.authorizeHttpRequests(
            requests -> requests.requestMatchers(OPEN).permitAll().anyRequest().authenticated())
        .oauth2ResourceServer(
            server ->
                server
                    .bearerTokenResolver(bearerTokens())
                    .authenticationManagerResolver(request -> manager))
        .build();
  }

  /**
   * The user a valid JWT names: its subject. A token for another audience (another application of
   * the same issuer) is refused when an audience is configured, and so is the subject {@code
   * local}, which owns the chats of a stack without users.
   */
  static String jwtUser(Jwt token, @Nullable String audience) {
    if (audience != null
        && !audience.isBlank()
        && (token.getAudience() == null || !token.getAudience().contains(audience))) {
      throw new InvalidBearerTokenException("the token is not for the audience " + audience);
    }
    String subject = token.getSubject();
    if (subject == null || subject.isBlank() || Users.LOCAL.equals(subject)) {
      throw new InvalidBearerTokenException("the token names no usable subject");
    }
    return subject;
  }

  /**
   * The {@code Authorization} header; for a chat's event stream also {@code ?access_token=}, since
   * a browser's {@code EventSource} cannot set headers.
   */
  private static BearerTokenResolver bearerTokens() {
    DefaultBearerTokenResolver header = new DefaultBearerTokenResolver();
    DefaultBearerTokenResolver headerOrQuery = new DefaultBearerTokenResolver();
    headerOrQuery.setAllowUriQueryParameter(true);
    return request ->
        "GET".equals(request.getMethod()) && request.getRequestURI().endsWith("/events")
            ? headerOrQuery.resolve(request)
            : header.resolve(request);
  }

  /** Without users, only this machine may connect, unless {@code server.address} is set. */
  @Bean
  WebServerFactoryCustomizer<ConfigurableWebServerFactory> loopbackWithoutUsers(
      Users users, SecurityProperties properties, Environment environment) {
    return factory -> {
      if (!users.hasKeys()
          && !properties.hasOidc()
          && !environment.containsProperty("server.address")) {
        factory.setAddress(InetAddress.getLoopbackAddress());
      }
    };
  }
}
