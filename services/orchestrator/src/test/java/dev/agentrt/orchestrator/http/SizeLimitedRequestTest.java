package dev.agentrt.orchestrator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A body of unknown length is read only up to the limit: past it the stream throws, however much
 * the client would still send, so no reader ever holds more than the limit.
 */
class SizeLimitedRequestTest {

  private static final int LIMIT = 64 * 1024;

  @Test
  void anEndlessBodyStopsJustPastTheLimit() {
    Endless client = new Endless();
    SizeLimitedRequest request = new SizeLimitedRequest(sending(client), LIMIT);

    assertThatThrownBy(() -> request.getInputStream().readAllBytes())
        .isInstanceOf(RequestTooLargeException.class)
        .hasMessage("the request body is larger than 65536 bytes (agentrt.http.max-request-size)");
    assertThat(client.sent).isGreaterThan(LIMIT).isLessThanOrEqualTo(LIMIT + Endless.CHUNK);
  }

  @Test
  void aParserReadingPastTheLimitFailsWithTheReasonAmongItsCauses() {
    SizeLimitedRequest request = new SizeLimitedRequest(sending(new Endless()), LIMIT);

    assertThatThrownBy(() -> JsonMapper.builder().build().readTree(request.getReader()))
        .isInstanceOf(JacksonException.class)
        .satisfies(e -> assertThat(RequestTooLargeException.in(e)).isPresent());
  }

  @Test
  void aBodyWithinTheLimitReadsWhole() throws IOException {
    MockHttpServletRequest small = new MockHttpServletRequest("POST", "/api/chats");
    small.setContent("{\"title\":\"t\"}".getBytes(StandardCharsets.UTF_8));

    SizeLimitedRequest request = new SizeLimitedRequest(small, 13);

    assertThat(request.getInputStream().readAllBytes()).asString().isEqualTo("{\"title\":\"t\"}");
  }

  private static MockHttpServletRequest sending(ServletInputStream body) {
    return new MockHttpServletRequest("POST", "/api/chats") {
      @Override
      public ServletInputStream getInputStream() {
        return body;
      }
    };
  }

  /** A client that never stops sending spaces (which JSON skips), counting what it sent. */
  private static final class Endless extends ServletInputStream {
    static final int CHUNK = 8 * 1024;
    long sent;

    @Override
    public int read() {
      sent++;
      return ' ';
    }

    @Override
    public int read(byte[] buffer, int offset, int length) {
      int n = Math.min(length, CHUNK);
      Arrays.fill(buffer, offset, offset + n, (byte) ' ');
      sent += n;
      return n;
    }

    @Override
    public boolean isFinished() {
      return false;
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setReadListener(ReadListener listener) {}
  }
}
