package dev.agentrt.orchestrator.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.agentrt.orchestrator.testing.RunningOrchestrator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.time.Instant;
import java.util.Date;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/**
 * The orchestrator as an OAuth2 resource server: a JWT's subject is the user, who owns the chats
 * they create; another subject gets 404; a token signed by someone else gets 401. The issuer's keys
 * are this test's (its own decoder, to which the configuration's gives way), so no issuer has to be
 * reachable.
 */
class OidcUsersTest {

  private static KeyPair issuerKeys;
  private static KeyPair otherKeys;
  private static RunningOrchestrator orchestrator;
  private static HttpClient http;

  @BeforeAll
  static void start() throws Exception {
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    issuerKeys = rsa.generateKeyPair();
    otherKeys = rsa.generateKeyPair();
    NimbusJwtDecoder decoder =
        NimbusJwtDecoder.withPublicKey((RSAPublicKey) issuerKeys.getPublic()).build();
    orchestrator =
        RunningOrchestrator.start(
            context -> context.getBeanFactory().registerSingleton("jwtDecoder", decoder),
            "--agentrt.security.oidc-issuer-uri=https://issuer.example/",
            "--agentrt.security.oidc-audience=agentrt");
    http = HttpClient.newHttpClient();
  }

  @AfterAll
  static void stop() {
    if (http != null) {
      http.close();
    }
    if (orchestrator != null) {
      orchestrator.close();
    }
  }

  @Test
  void theSubjectOwnsItsChatsAndOtherSubjectsGet404() throws Exception {
    HttpResponse<String> created =
        send("POST", "/api/chats", token(issuerKeys, "dave"), "{\"title\":\"dave's chat\"}");
    assertThat(created.statusCode()).isEqualTo(201);
    Matcher id = Pattern.compile("\"id\":\"([^\"]+)\"").matcher(created.body());
    assertThat(id.find()).isTrue();
    String chat = "/api/chats/" + id.group(1);

    assertThat(send("GET", chat, token(issuerKeys, "dave"), null).statusCode()).isEqualTo(200);
    HttpResponse<String> erin = send("GET", chat, token(issuerKeys, "erin"), null);
    assertThat(erin.statusCode()).isEqualTo(404);
    assertThat(erin.body()).doesNotContain("dave's chat");
  }

  @Test
  void aTokenSignedByAnotherKeyOrNoTokenIsRefusedWith401() throws Exception {
    HttpResponse<String> forged = send("GET", "/api/chats", token(otherKeys, "dave"), null);
    HttpResponse<String> none = send("GET", "/api/chats", null, null);

    assertThat(forged.statusCode()).isEqualTo(401);
    assertThat(forged.headers().firstValue("WWW-Authenticate").orElse(""))
        .contains("invalid_token");
    assertThat(none.statusCode()).isEqualTo(401);
  }

  @Test
  void aTokenForAnotherAudienceOrForTheLocalUserIsRefusedWith401() throws Exception {
    HttpResponse<String> otherApp =
        send("GET", "/api/chats", token(issuerKeys, "dave", "another-app"), null);
    HttpResponse<String> local = send("GET", "/api/chats", token(issuerKeys, "local"), null);

    assertThat(otherApp.statusCode()).isEqualTo(401);
    assertThat(otherApp.headers().firstValue("WWW-Authenticate").orElse(""))
        .contains("invalid_token");
    assertThat(local.statusCode()).isEqualTo(401);
    assertThat(send("GET", "/api/chats", token(issuerKeys, "dave"), null).statusCode())
        .isEqualTo(200);
  }

  private static String token(KeyPair keys, String subject) throws Exception {
    return token(keys, subject, "agentrt");
  }

  private static String token(KeyPair keys, String subject, String audience) throws Exception {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader(JWSAlgorithm.RS256),
            new JWTClaimsSet.Builder()
                .subject(subject)
                .audience(audience)
                .issuer("https://issuer.example/")
                .expirationTime(Date.from(Instant.now().plusSeconds(600)))
                .build());
    jwt.sign(new RSASSASigner(keys.getPrivate()));
    return jwt.serialize();
  }

  private static HttpResponse<String> send(String method, String path, String token, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + orchestrator.port() + path))
            .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), BodyHandlers.ofString());
  }
}
