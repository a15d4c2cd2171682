package dev.agentrt.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The Java records, the JSON Schemas, the topic constants and the AsyncAPI document agree. */
class ContractsAgreeTest {

  private static final JsonNode ASYNCAPI = TopicCatalog.asyncApi();

  @ParameterizedTest
  @EnumSource(EventType.class)
  void recordComponentsAreExactlyTheSchemaPropertiesAndOnlyNullableOnesAreOptional(EventType type)
      throws Exception {
    JsonNode schema;
    try (InputStream in = getClass().getResourceAsStream(type.schemaResource())) {
      schema = JsonMapper.builder().build().readTree(in);
    }
    RecordComponent[] components = type.javaType().getRecordComponents();

    Set<String> properties = new HashSet<>(schema.required("properties").propertyNames());
    assertThat(Arrays.stream(components).map(RecordComponent::getName))
        .containsExactlyInAnyOrderElementsOf(properties);

    List<String> required = new ArrayList<>();
    schema.required("required").forEach(n -> required.add(n.asString()));
    assertThat(
            Arrays.stream(components)
                .filter(c -> !c.getAnnotatedType().isAnnotationPresent(Nullable.class))
                .map(RecordComponent::getName))
        .containsExactlyInAnyOrderElementsOf(required);

    assertThat(schema.required("$id").asString()).isEqualTo(type.dataSchema().toString());
  }

  @ParameterizedTest
  @EnumSource(EventType.class)
  void asyncApiCarriesEveryEventTypeOnItsTopicWithItsSchema(EventType type) {
    String simpleName = type.javaType().getSimpleName();
    JsonNode message = ASYNCAPI.path("components").path("messages").path(simpleName);

    assertThat(message.path("name").asString()).isEqualTo(type.ceType());
    assertThat(message.path("payload").path("$ref").asString())
        .isEqualTo("." + type.schemaResource());
    List<String> channelsCarryingIt = new ArrayList<>();
    ASYNCAPI
        .required("channels")
        .properties()
        .forEach(
            c -> {
              if (c.getValue().path("messages").has(simpleName)) {
                channelsCarryingIt.add(c.getValue().path("address").asString());
              }
            });
    assertThat(channelsCarryingIt).containsExactly(type.topic());
  }

  @Test
  void topicConstantsAreExactlyTheChannelsOfTheAsyncApiDocument() throws Exception {
    List<String> constants = new ArrayList<>();
    for (Field f : Topics.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        constants.add((String) f.get(null));
      }
    }

    assertThat(TopicCatalog.topics().stream().map(TopicSpec::name))
        .containsExactlyInAnyOrderElementsOf(constants);
    assertThat(TopicCatalog.topics()).allSatisfy(t -> assertThat(t.partitions()).isPositive());
  }

  @Test
  void everyEventChannelHasAProducerAndAConsumer() {
    Set<String> sent = new HashSet<>();
    Set<String> received = new HashSet<>();
    ASYNCAPI
        .required("operations")
        .forEach(
            op -> {
              String channel = op.required("channel").required("$ref").asString();
              (op.required("action").asString().equals("send") ? sent : received).add(channel);
              assertThat(op.path("x-service").asString()).isNotBlank();
            });

    ASYNCAPI
        .required("channels")
        .properties()
        .forEach(
            c -> {
              String ref = "#/channels/" + c.getKey();
              assertThat(sent).as("producers of %s", ref).contains(ref);
              if (c.getValue().has("messages")) {
                assertThat(received).as("consumers of %s", ref).contains(ref);
              }
            });
  }
}
