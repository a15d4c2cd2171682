package dev.agentrt.platform.messaging;

import dev.agentrt.events.EventType;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.cloud.stream.config.BindingProperties;
import org.springframework.cloud.stream.config.BindingServiceProperties;
import org.springframework.cloud.stream.config.ConsumerEndpointCustomizer;
import org.springframework.integration.kafka.inbound.KafkaMessageDrivenChannelAdapter;

/**
 * Gives the consumer binding of each {@link SelectiveConsumer} a record filter that drops, by the
 * record's CloudEvents {@code ce_type} header alone, the records of event types the function does
 * not handle: no decoding, no schema check, no dispatch. Every service reads the whole {@code
 * agentrt.tasks} topic and most handle one or two of its five types.
 *
 * <p>Only a known type is dropped: a record without the header, or of a type the catalog does not
 * know, reaches the function, which refuses it, and the binding dead-letters it as before.
 */
public class UnhandledEventTypes
    implements ConsumerEndpointCustomizer<KafkaMessageDrivenChannelAdapter<?, ?>> {

  /** The header that carries the CloudEvents {@code type} of a record in binary mode. */
  static final String TYPE_HEADER = "ce_type";

  private static final Set<String> KNOWN =
      java.util.Arrays.stream(EventType.values())
          .map(EventType::ceType)
          .collect(Collectors.toUnmodifiableSet());

  private final BindingServiceProperties bindings;
  private final BeanFactory functions;

  public UnhandledEventTypes(BindingServiceProperties bindings, BeanFactory functions) {
    this.bindings = bindings;
    this.functions = functions;
  }

  @Override
  public void configure(
      KafkaMessageDrivenChannelAdapter<?, ?> endpoint, String destination, String group) {
    for (Map.Entry<String, BindingProperties> binding : bindings.getBindings().entrySet()) {
      String name = binding.getKey();
      int input = name.lastIndexOf("-in-");
      if (input < 0
          || !destination.equals(binding.getValue().getDestination())
          || !Objects.equals(group, bindings.getBindingProperties(name).getGroup())) {
        continue;
      }
      String function = name.substring(0, input);
      if (functions.containsBean(function)
          && functions.getBean(function) instanceof SelectiveConsumer selective) {
        Set<String> handled =
            selective.handles().stream()
                .map(EventType::ceType)
                .collect(Collectors.toUnmodifiableSet());
        endpoint.setRecordFilterStrategy(record -> unhandled(record.headers(), handled));
      }
      return;
    }
  }

  /** Whether the record is an event of a known type that is not among {@code handled}. */
  static boolean unhandled(Headers headers, Set<String> handled) {
    Header header = headers.lastHeader(TYPE_HEADER);
    if (header == null || header.value() == null) {
      return false;
    }
    String type = new String(header.value(), StandardCharsets.UTF_8);
    return KNOWN.contains(type) && !handled.contains(type);
  }
}
