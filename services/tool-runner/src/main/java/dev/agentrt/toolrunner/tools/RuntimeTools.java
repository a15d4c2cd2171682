package dev.agentrt.toolrunner.tools;

import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.model.ToolSpec;
import java.time.Duration;
import java.util.List;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * The tools the runtime handles itself ({@code ask_user}: the agent loop makes the sub-agent wait
 * for the person). They are in the registry so that the catalog is complete; never run here.
 */
public final class RuntimeTools implements ToolSource {

  private static final List<RegisteredTool> TOOLS = List.of(runtime(ToolCatalog.ASK_USER_SPEC));

  @Override
  public List<RegisteredTool> tools() {
    return TOOLS;
  }

  private static RegisteredTool runtime(ToolSpec spec) {
    ToolDefinition definition =
        ToolDefinition.builder()
            .name(spec.name())
            .description(spec.description())
            .inputSchema(spec.inputSchema())
            .build();
    ToolCallback callback =
        new ToolCallback() {
          @Override
          public ToolDefinition getToolDefinition() {
            return definition;
          }

          @Override
          public String call(String toolInput) {
            throw new ToolException(
                ErrorType.unknown_tool, spec.name() + " is handled by the agent loop");
          }
        };
    return new RegisteredTool(callback, null, Duration.ZERO, true, RegisteredTool.RUNTIME, false);
  }
}
