package dev.agentrt.toolrunner.tools;

import dev.agentrt.agents.ToolCatalog;
import net.objecthunter.exp4j.Expression;
import net.objecthunter.exp4j.ExpressionBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code calculator {expression}}: evaluates an arithmetic expression with exp4j (numbers, {@code +
 * - * / % ^}, parentheses, functions such as {@code sqrt}, {@code log}, {@code sin}, constants
 * {@code pi} and {@code e}). Nothing else is evaluated: there are no variables and no code.
 */
final class Calculator implements Tool {

  static final int MAX_LENGTH = 500;
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  record Result(String expression, double result) {}

  @Override
  public String name() {
    return ToolCatalog.CALCULATOR;
  }

  @Override
  public String description() {
    return "Evaluate an arithmetic expression, e.g. (2 + 3) * 4 / sqrt(16) or 2^10 % 7. Supports"
        + " + - * / % ^, parentheses, abs, sqrt, cbrt, log, log10, exp, sin, cos, tan, floor,"
        + " ceil, pi and e. Returns {expression, result}.";
  }

  @Override
  public String inputSchema() {
    return """
        {"type":"object","required":["expression"],"additionalProperties":false,
         "properties":{"expression":{"type":"string","minLength":1,"maxLength":%d}}}"""
        .formatted(MAX_LENGTH);
  }

  @Override
  public String outputSchema() {
    return """
        {"type":"object","required":["expression","result"],
         "properties":{"expression":{"type":"string"},"result":{"type":"number"}}}""";
  }

  @Override
  public String execute(JsonNode arguments) {
    String expression = arguments.path("expression").asString("").strip();
    double result;
    try {
      Expression parsed = new ExpressionBuilder(expression).build();
      result = parsed.evaluate();
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new ToolException(
          ErrorType.invalid_arguments, "cannot evaluate '" + expression + "': " + e.getMessage());
    }
    if (Double.isNaN(result) || Double.isInfinite(result)) {
      throw new ToolException(
          ErrorType.invalid_arguments, "'" + expression + "' has no finite value");
    }
    return MAPPER.writeValueAsString(new Result(expression, result));
  }
}
