package dev.agentrt.model.springai;

import java.io.IOException;
import java.net.Socket;
import okhttp3.Interceptor;
import okhttp3.Response;
import okhttp3.internal.connection.RealCall;
import okhttp3.internal.connection.RealConnection;

/**
 * Switches Nagle's algorithm off on the connection a model call used, for the calls after it.
 * OkHttp, under Spring AI's OpenAI and Anthropic clients, leaves it on; a request whose body takes
 * more than one write (OkHttp writes 8 KiB at a time: a conversation past some 16 KiB) then holds
 * its last part until the server acknowledges the first, and a server delays that acknowledgement
 * up to 40 ms. Every model call on a long conversation waited so against a local endpoint (44 ms
 * for a 20 KB body, 0.7 ms without Nagle: bench/README.md, 27 November); over the internet it costs
 * a round trip.
 *
 * <p>Spring AI's clients take application interceptors only, which run before the call has its
 * connection, so the socket is set as the call returns: a new connection's first call may still
 * wait, the pool's later ones do not. (OkHttp's own way, a socket factory, is not open to it.)
 */
final class NoDelaySockets implements Interceptor {

  @Override
  public Response intercept(Chain chain) throws IOException {
    Response response = chain.proceed(chain.request());
    if (chain.call() instanceof RealCall call) {
      RealConnection connection = call.getConnection();
      if (connection != null) {
        Socket socket = connection.socket();
        if (!socket.getTcpNoDelay()) {
          socket.setTcpNoDelay(true);
        }
      }
    }
    return response;
  }
}
