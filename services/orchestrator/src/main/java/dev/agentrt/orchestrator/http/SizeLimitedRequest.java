package dev.agentrt.orchestrator.http;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A request whose body length is not known up front (chunked): its body stream counts the bytes
 * read and throws {@link RequestTooLargeException} once they pass the limit, so however much the
 * client sends, no reader holds more than the limit.
 */
final class SizeLimitedRequest extends HttpServletRequestWrapper {

  private final long maxBytes;
  private @Nullable ServletInputStream body;
  private @Nullable BufferedReader reader;

  SizeLimitedRequest(HttpServletRequest request, long maxBytes) {
    super(request);
    this.maxBytes = maxBytes;
  }

  @Override
  public ServletInputStream getInputStream() throws IOException {
    if (body == null) {
      body = new Counting(super.getInputStream(), maxBytes);
    }
    return body;
  }

  @Override
  public BufferedReader getReader() throws IOException {
    if (reader == null) {
      String encoding = getCharacterEncoding();
      Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
      reader = new BufferedReader(new InputStreamReader(getInputStream(), charset));
    }
    return reader;
  }

  private static final class Counting extends ServletInputStream {

    private final ServletInputStream in;
    private final long maxBytes;
    private long read;

    Counting(ServletInputStream in, long maxBytes) {
      this.in = in;
      this.maxBytes = maxBytes;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = in.read(buffer, offset, length);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) throws RequestTooLargeException {
      read += n;
      if (read > maxBytes) {
        throw new RequestTooLargeException(maxBytes);
      }
    }

    @Override
    public boolean isFinished() {
      return in.isFinished();
    }

    @Override
    public boolean isReady() {
      return in.isReady();
    }

    @Override
    public void setReadListener(ReadListener listener) {
      in.setReadListener(listener);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
