package dev.agentrt.toolrunner;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Executes tool calls and records their results as tool messages. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ToolRunnerApplication {

  public static void main(String[] args) {
    SpringApplication.run(ToolRunnerApplication.class, args);
  }
}
