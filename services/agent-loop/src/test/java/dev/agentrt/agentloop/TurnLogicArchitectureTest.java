package dev.agentrt.agentloop;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * What a turn calls for is decided from the messages alone: the classes that decide it know nothing
 * of Spring, Kafka or MongoDB, so they are tested without any of them.
 */
@AnalyzeClasses(
    packages = "dev.agentrt.agentloop",
    importOptions = ImportOption.DoNotIncludeTests.class)
class TurnLogicArchitectureTest {

  @ArchTest
  static final ArchRule turnLogicHasNoInfrastructure =
      classes()
          .that()
          .haveSimpleNameStartingWith("ConversationState")
          .or()
          .haveSimpleNameStartingWith("TurnOutcome")
          .should()
          .onlyDependOnClassesThat()
          .resideOutsideOfPackages(
              "org.springframework..", "org.apache.kafka..", "com.mongodb..", "org.bson..");
}
