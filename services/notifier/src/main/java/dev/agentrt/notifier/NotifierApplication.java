package dev.agentrt.notifier;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Asks the person in the chat when a sub-agent needs more information. */
@SpringBootApplication
public class NotifierApplication {

  public static void main(String[] args) {
    SpringApplication.run(NotifierApplication.class, args);
  }
}
