package dev.agentrt.model.springai;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A provider that reads each HTTP request and never answers: it holds the connection open for 30 s
 * and notes when the client closes it. A raw socket, so the close is seen as it happens (the JDK
 * {@code HttpServer} would not tell).
 */
final class HeldProvider implements AutoCloseable {

  private static final int HOLD_MILLIS = 30_000;

  private final ServerSocket server;
  private final CountDownLatch received = new CountDownLatch(1);
  private final CountDownLatch closedByClient = new CountDownLatch(1);
  private final AtomicInteger connections = new AtomicInteger();

  HeldProvider() {
    try {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread.ofVirtual().name("held-provider").start(this::accept);
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  /** Counted down once a whole request has arrived. */
  CountDownLatch received() {
    return received;
  }

  /** Counted down when the client closes a connection whose request was held. */
  CountDownLatch closedByClient() {
    return closedByClient;
  }

  /** Connections accepted so far: more than one means the client tried again. */
  int connections() {
    return connections.get();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        connections.incrementAndGet();
        Thread.ofVirtual().start(() -> hold(socket));
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void hold(Socket socket) {
    try (socket) {
      socket.setSoTimeout(HOLD_MILLIS);
      InputStream in = socket.getInputStream();
      readRequest(in);
      received.countDown();
      // Nothing more comes from a client that waits for the answer: read returns -1 (or fails)
      // only when it closes the connection.
      if (in.read() < 0) {
        closedByClient.countDown();
      }
    } catch (SocketTimeoutException held) {
      // 30 s passed with the connection open
    } catch (IOException reset) {
      closedByClient.countDown();
    }
  }

  /** Reads the head up to the blank line, then as many bytes as Content-Length says. */
  private static void readRequest(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int next = in.read();
      if (next < 0) {
        throw new IOException("closed before the request ended");
      }
      head.append((char) next);
    }
    int length = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    in.readNBytes(length);
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
