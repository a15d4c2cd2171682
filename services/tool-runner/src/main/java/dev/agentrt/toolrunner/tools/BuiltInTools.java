package dev.agentrt.toolrunner.tools;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import tools.jackson.databind.json.JsonMapper;

/** The tools written in Java here, as registry entries. */
public final class BuiltInTools implements ToolSource {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private final List<RegisteredTool> tools;

  public BuiltInTools(List<Tool> tools, ToolSettings settings) {
    this.tools =
        tools.stream()
            .map(
                tool ->
                    new RegisteredTool(
                        new Callback(tool),
                        tool.outputSchema(),
                        settings.timeout(tool.name(), null),
                        settings.idempotent(tool.name(), tool.idempotent()),
                        RegisteredTool.BUILT_IN,
                        settings.approvalRequired(tool.name(), tool.approvalRequired())))
            .toList();
  }

  @Override
  public List<RegisteredTool> tools() {
    return tools;
  }

  /** A built-in tool as Spring AI's callback: JSON arguments in, JSON result out. */
  private record Callback(Tool tool) implements ToolCallback {

    @Override
    public ToolDefinition getToolDefinition() {
      return tool.definition();
    }

    @Override
    public String call(String toolInput) {
      return tool.execute(MAPPER.readTree(toolInput));
    }

    /** With the call's id, when the context carries it ({@link Toolbox#TOOL_CALL_ID}). */
    @Override
    public String call(String toolInput, @Nullable ToolContext context) {
      Object toolCallId = context == null ? null : context.getContext().get(Toolbox.TOOL_CALL_ID);
      return toolCallId == null
          ? call(toolInput)
          : tool.execute(MAPPER.readTree(toolInput), toolCallId.toString());
    }
  }
}
