package dev.agentrt.orchestrator.testing;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.orchestrator.OrchestratorApplication;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The orchestrator as it runs: Tomcat on a free port, a real KRaft broker, the real
 * MongoDB-protocol server, the offline model; more arguments configure it.
 */
public final class RunningOrchestrator implements AutoCloseable {

  private final EmbeddedKafkaKraftBroker kafka;
  private final MongoServer mongoServer;
  private final ConfigurableApplicationContext app;

  private RunningOrchestrator(
      EmbeddedKafkaKraftBroker kafka, MongoServer mongoServer, ConfigurableApplicationContext app) {
    this.kafka = kafka;
    this.mongoServer = mongoServer;
    this.app = app;
  }

  public static RunningOrchestrator start(String... arguments) {
    return start(context -> {}, arguments);
  }

  /** With an initializer that registers beans first (a clock, say). */
  public static RunningOrchestrator start(
      ApplicationContextInitializer<ConfigurableApplicationContext> initializer,
      String... arguments) {
    EmbeddedKafkaKraftBroker kafka = new EmbeddedKafkaKraftBroker(1, 1);
    kafka.afterPropertiesSet();
    MongoServer mongoServer = new MongoServer(new MemoryBackend());
    String mongoUri = "mongodb://127.0.0.1:" + mongoServer.bind().getPort() + "/agentrt";
    List<String> args =
        new ArrayList<>(
            List.of(
                "--spring.kafka.bootstrap-servers=" + kafka.getBrokersAsString(),
                "--spring.mongodb.uri=" + mongoUri,
                "--server.port=0"));
    args.addAll(List.of(arguments));
    ConfigurableApplicationContext app =
        new SpringApplicationBuilder(OrchestratorApplication.class)
            .initializers(initializer)
            .run(args.toArray(String[]::new));
    return new RunningOrchestrator(kafka, mongoServer, app);
  }

  public MongoTemplate mongo() {
    return app.getBean(MongoTemplate.class);
  }

  public int port() {
    return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
  }

  @Override
  public void close() {
    app.close();
    mongoServer.shutdownNow();
    kafka.destroy();
  }
}
