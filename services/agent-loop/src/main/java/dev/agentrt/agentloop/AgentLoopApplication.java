package dev.agentrt.agentloop;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Runs sub-agent turns: calls the model, records tool calls and outcomes. */
@SpringBootApplication
public class AgentLoopApplication {

  public static void main(String[] args) {
    SpringApplication.run(AgentLoopApplication.class, args);
  }
}
