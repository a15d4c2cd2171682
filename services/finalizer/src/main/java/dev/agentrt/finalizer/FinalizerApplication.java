package dev.agentrt.finalizer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Turns finished tasks into answers in the chat. */
@SpringBootApplication
public class FinalizerApplication {

  public static void main(String[] args) {
    SpringApplication.run(FinalizerApplication.class, args);
  }
}
