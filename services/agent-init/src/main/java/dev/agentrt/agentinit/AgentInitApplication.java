package dev.agentrt.agentinit;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Starts a sub-agent for every new agent task. */
@SpringBootApplication
public class AgentInitApplication {

  public static void main(String[] args) {
    SpringApplication.run(AgentInitApplication.class, args);
  }
}
