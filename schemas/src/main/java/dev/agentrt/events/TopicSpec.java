package dev.agentrt.events;

/** A topic as the AsyncAPI document declares it. */
public record TopicSpec(String name, int partitions, String key) {}
