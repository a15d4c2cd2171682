package dev.agentrt.systemtests;

/**
 * The walking skeleton on the broker and Mongo server the local stack uses: a real KRaft Kafka
 * broker and mongo-java-server, all six services as separate processes.
 */
class WalkingSkeletonEmbeddedIT extends WalkingSkeletonContract {

  @Override
  protected RunningServices services() {
    return EmbeddedStack.get().services;
  }

  @Override
  protected String kafkaBootstrap() {
    return EmbeddedStack.get().kafka.bootstrapServers();
  }

  @Override
  protected String mongoUri() {
    return EmbeddedStack.get().mongo.uri();
  }
}
