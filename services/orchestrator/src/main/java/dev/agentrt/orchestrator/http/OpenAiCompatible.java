package dev.agentrt.orchestrator.http;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a controller of the OpenAI-compatible API ({@code /v1}): what it refuses is answered in
 * OpenAI's error shape, {@code {"error":{"message","type","param"?,"code"?}}}, which OpenAI clients
 * read, instead of the chat API's problem details.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface OpenAiCompatible {}
