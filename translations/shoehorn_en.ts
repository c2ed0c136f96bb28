<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>ChatView</name>
    <message>
        <source>You</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens · %2 tok/s · first token %3 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n older message(s) left out to fit the context</source>
        <translation>
            <numerusform>%n older message left out to fit the context</numerusform>
            <numerusform>%n older messages left out to fit the context</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ErrorText</name>
    <message>
        <source>Cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not enough memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open this model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Something went wrong</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No error.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The file does not exist.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The file cannot be read.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This is not a GGUF model file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This GGUF version is not supported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The file is incomplete. Was the download interrupted?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The file is damaged or not a valid model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A part of this split model is missing.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A setting has an invalid value.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama.cpp could not load the model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model or its context does not fit in memory. Try fewer GPU layers or a smaller context.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The operation was cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The context could not be created.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model&apos;s chat template failed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The message could not be tokenized.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Generation failed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The message is longer than the context. Increase the context size or shorten it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Details: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Out of memory: the %1 buffer needed %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Out of memory while loading.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retrying with the experts of %1 layers on the CPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retrying with %1 layers on the GPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retrying with a context of %1 tokens.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retrying with a q8_0 KV cache.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Shoehorn</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a GGUF model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading the prompt: %1 of %2 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drop a .gguf model here or choose a model file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shoehorn runs GGUF models locally with llama.cpp, split between GPU and CPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open Model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New Chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tok/s · context %2 / %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · %2 · context %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Writing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loaded after running out of memory: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MessageInput</name>
    <message>
        <source>Type a message. Enter sends, Shift+Enter adds a line.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelBrowser</name>
    <message>
        <source>%1 (missing)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (new)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a model file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove from list</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Chat with large local GGUF models on small GPUs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A .gguf model to open.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
