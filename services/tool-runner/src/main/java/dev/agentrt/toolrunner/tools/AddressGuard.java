package dev.agentrt.toolrunner.tools;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Where {@code http_get} may connect: a host's addresses, resolved once, and refused if any is
 * loopback, private, link-local (cloud metadata, 169.254.169.254), unique-local, shared (CGNAT),
 * multicast or unspecified, unless that exact address is in {@code allowed-addresses}. The request
 * then connects to exactly these addresses (see {@link HttpGet}), so a name cannot resolve to a
 * public address for the check and to a private one for the connection (DNS rebinding).
 */
final class AddressGuard {

  private final Set<InetAddress> allowed;

  AddressGuard(List<String> allowedAddresses) {
    this.allowed =
        allowedAddresses.stream()
            .map(AddressGuard::literal)
            .collect(Collectors.toUnmodifiableSet());
  }

  /**
   * The host's addresses, all of them fit to connect to.
   *
   * @throws ToolException not_allowed naming the address refused; tool_error when it does not
   *     resolve
   */
  InetAddress[] resolve(String host) {
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(host);
    } catch (UnknownHostException e) {
      throw new ToolException(ErrorType.tool_error, "host " + host + " does not resolve", true);
    }
    for (InetAddress address : addresses) {
      if (internal(address) && !allowed.contains(address)) {
        throw new ToolException(
            ErrorType.not_allowed,
            "host "
                + host
                + " is at "
                + address.getHostAddress()
                + ", an address inside this network (loopback, private, link-local or metadata);"
                + " it is not fetched unless agentrt.tools.http.allowed-addresses lists it");
      }
    }
    return Arrays.copyOf(addresses, addresses.length);
  }

  static boolean internal(InetAddress address) {
    if (address.isLoopbackAddress()
        || address.isAnyLocalAddress()
        || address.isLinkLocalAddress()
        || address.isSiteLocalAddress()
        || address.isMulticastAddress()) {
      return true;
    }
    byte[] b = address.getAddress();
    if (address instanceof Inet4Address) {
      int first = b[0] & 0xff;
      int second = b[1] & 0xff;
      return first == 0 // "this network"
          || (first == 100 && second >= 64 && second < 128) // shared address space (CGNAT)
          || (first == 192 && second == 0 && (b[2] & 0xff) == 0) // IETF protocol assignments
          || (first == 198 && (second == 18 || second == 19)) // benchmarking
          || first >= 240; // reserved, broadcast
    }
    if (address instanceof Inet6Address) {
      return (b[0] & 0xfe) == 0xfc // unique local fc00::/7 (fd00:ec2::254, metadata)
          || embedsInternalIpv4(b);
    }
    return true;
  }

  /** ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible) and 64:ff9b::a.b.c.d (NAT64). */
  private static boolean embedsInternalIpv4(byte[] b) {
    boolean zeros = true;
    for (int i = 0; i < 10; i++) {
      zeros &= b[i] == 0;
    }
    boolean mapped = zeros && ((b[10] == 0 && b[11] == 0) || (b[10] == -1 && b[11] == -1));
    boolean nat64 = b[0] == 0 && b[1] == 0x64 && b[2] == (byte) 0xff && b[3] == (byte) 0x9b;
    if (!mapped && !nat64) {
      return false;
    }
    try {
      return internal(InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16)));
    } catch (UnknownHostException cannotHappen) {
      return true;
    }
  }

  private static InetAddress literal(String address) {
    String a = address.strip();
    if (a.startsWith("[") && a.endsWith("]")) {
      a = a.substring(1, a.length() - 1);
    }
    if (!a.matches("[0-9a-fA-F:.%]+")) {
      throw new IllegalArgumentException(
          "agentrt.tools.http.allowed-addresses holds IP addresses, not names: " + address);
    }
    try {
      return InetAddress.getByName(a); // a literal: no lookup
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address: " + address, e);
    }
  }
}
