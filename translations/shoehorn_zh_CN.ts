<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
  <context>
    <name>ChatView</name>
    <message>
      <source>You</source>
      <translation>你</translation>
    </message>
    <message>
      <source>Assistant</source>
      <translation>助手</translation>
    </message>
    <message>
      <source>System</source>
      <translation>系统</translation>
    </message>
    <message>
      <source>Stopped</source>
      <translation>已停止</translation>
    </message>
    <message>
      <source>Failed</source>
      <translation>失败</translation>
    </message>
    <message>
      <source>%1 tokens · %2 tok/s · first token %3 ms</source>
      <translation>%1 个 token · %2 tok/s · 首 token %3 毫秒</translation>
    </message>
    <message numerus="yes">
      <source>%n older message(s) left out to fit the context</source>
      <translation>
        <numerusform>为适应上下文，省略了 %n 条较早的消息</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>ErrorText</name>
    <message>
      <source>Cancelled</source>
      <translation>已取消</translation>
    </message>
    <message>
      <source>Not enough memory</source>
      <translation>内存不足</translation>
    </message>
    <message>
      <source>Cannot open this model</source>
      <translation>无法打开此模型</translation>
    </message>
    <message>
      <source>Something went wrong</source>
      <translation>出错了</translation>
    </message>
    <message>
      <source>No error.</source>
      <translation>没有错误。</translation>
    </message>
    <message>
      <source>The file does not exist.</source>
      <translation>文件不存在。</translation>
    </message>
    <message>
      <source>The file cannot be read.</source>
      <translation>无法读取文件。</translation>
    </message>
    <message>
      <source>This is not a GGUF model file.</source>
      <translation>这不是 GGUF 模型文件。</translation>
    </message>
    <message>
      <source>This GGUF version is not supported.</source>
      <translation>不支持此 GGUF 版本。</translation>
    </message>
    <message>
      <source>The file is incomplete. Was the download interrupted?</source>
      <translation>文件不完整。下载是否被中断？</translation>
    </message>
    <message>
      <source>The file is damaged or not a valid model.</source>
      <translation>文件已损坏或不是有效的模型。</translation>
    </message>
    <message>
      <source>A part of this split model is missing.</source>
      <translation>此分卷模型缺少一部分文件。</translation>
    </message>
    <message>
      <source>A setting has an invalid value.</source>
      <translation>某项设置的值无效。</translation>
    </message>
    <message>
      <source>llama.cpp could not load the model.</source>
      <translation>llama.cpp 无法加载该模型。</translation>
    </message>
    <message>
      <source>The model or its context does not fit in memory. Try fewer GPU layers or a smaller context.</source>
      <translation>模型或其上下文放不进内存。请尝试减少 GPU 层数或缩小上下文。</translation>
    </message>
    <message>
      <source>The operation was cancelled.</source>
      <translation>操作已取消。</translation>
    </message>
    <message>
      <source>The context could not be created.</source>
      <translation>无法创建上下文。</translation>
    </message>
    <message>
      <source>The model's chat template failed.</source>
      <translation>模型的聊天模板出错。</translation>
    </message>
    <message>
      <source>The message could not be tokenized.</source>
      <translation>无法对消息进行分词。</translation>
    </message>
    <message>
      <source>Generation failed.</source>
      <translation>生成失败。</translation>
    </message>
    <message>
      <source>No model is loaded.</source>
      <translation>尚未加载模型。</translation>
    </message>
    <message>
      <source>The message is longer than the context. Increase the context size or shorten it.</source>
      <translation>消息超出了上下文长度。请增大上下文或缩短消息。</translation>
    </message>
    <message>
      <source>Details: %1</source>
      <translation>详情：%1</translation>
    </message>
    <message>
      <source>Out of memory: the %1 buffer needed %2.</source>
      <translation>内存不足：%1 缓冲区需要 %2。</translation>
    </message>
    <message>
      <source>Out of memory while loading.</source>
      <translation>加载时内存不足。</translation>
    </message>
    <message>
      <source>Retrying with the experts of %1 layers on the CPU.</source>
      <translation>正在重试：将 %1 层的专家放到 CPU。</translation>
    </message>
    <message>
      <source>Retrying with %1 layers on the GPU.</source>
      <translation>正在重试：GPU 上放 %1 层。</translation>
    </message>
    <message>
      <source>Retrying with a context of %1 tokens.</source>
      <translation>正在重试：上下文缩小到 %1 个 token。</translation>
    </message>
    <message>
      <source>Retrying with a q8_0 KV cache.</source>
      <translation>正在重试：KV 缓存改用 q8_0。</translation>
    </message>
  </context>
  <context>
    <name>MainWindow</name>
    <message>
      <source>Shoehorn</source>
      <translation>Shoehorn</translation>
    </message>
    <message>
      <source>Open a GGUF model</source>
      <translation>打开 GGUF 模型</translation>
    </message>
    <message>
      <source>GGUF models (*.gguf);;All files (*)</source>
      <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
      <source>Reading the prompt: %1 of %2 tokens</source>
      <translation>正在读取提示词：%1 / %2 个 token</translation>
    </message>
    <message>
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <source>Drop a .gguf model here or choose a model file</source>
      <translation>将 .gguf 模型拖到这里，或选择模型文件</translation>
    </message>
    <message>
      <source>Shoehorn runs GGUF models locally with llama.cpp, split between GPU and CPU.</source>
      <translation>Shoehorn 使用 llama.cpp 在本地运行 GGUF 模型，在 GPU 与 CPU 之间分配计算。</translation>
    </message>
    <message>
      <source>Choose a model…</source>
      <translation>选择模型…</translation>
    </message>
    <message>
      <source>Send</source>
      <translation>发送</translation>
    </message>
    <message>
      <source>&amp;File</source>
      <translation>文件(&amp;F)</translation>
    </message>
    <message>
      <source>&amp;Open Model…</source>
      <translation>打开模型(&amp;O)…</translation>
    </message>
    <message>
      <source>&amp;New Chat</source>
      <translation>新建对话(&amp;N)</translation>
    </message>
    <message>
      <source>&amp;Quit</source>
      <translation>退出(&amp;Q)</translation>
    </message>
    <message>
      <source>Stop</source>
      <translation>停止</translation>
    </message>
    <message>
      <source>Loading %1…</source>
      <translation>正在加载 %1…</translation>
    </message>
    <message>
      <source>Loading cancelled.</source>
      <translation>已取消加载。</translation>
    </message>
    <message>
      <source>%1 tok/s · context %2 / %3</source>
      <translation>%1 tok/s · 上下文 %2 / %3</translation>
    </message>
    <message>
      <source>No model loaded</source>
      <translation>未加载模型</translation>
    </message>
    <message>
      <source>%1 · %2 · context %3</source>
      <translation>%1 · %2 · 上下文 %3</translation>
    </message>
    <message>
      <source>Writing…</source>
      <translation>正在生成…</translation>
    </message>
    <message>
      <source>&amp;View</source>
      <translation>视图(&amp;V)</translation>
    </message>
    <message>
      <source>Loaded after running out of memory: %1</source>
      <translation>内存不足后已用更保守的设置加载：%1</translation>
    </message>
  </context>
  <context>
    <name>MessageInput</name>
    <message>
      <source>Type a message. Enter sends, Shift+Enter adds a line.</source>
      <translation>输入消息。Enter 发送，Shift+Enter 换行。</translation>
    </message>
  </context>
  <context>
    <name>ModelBrowser</name>
    <message>
      <source>%1 (missing)</source>
      <translation>%1（文件不存在）</translation>
    </message>
    <message>
      <source>%1 (new)</source>
      <translation>%1（新）</translation>
    </message>
    <message>
      <source>Models</source>
      <translation>模型</translation>
    </message>
    <message>
      <source>Open a model file…</source>
      <translation>打开模型文件…</translation>
    </message>
    <message>
      <source>Open</source>
      <translation>打开</translation>
    </message>
    <message>
      <source>Remove from list</source>
      <translation>从列表中移除</translation>
    </message>
  </context>
  <context>
    <name>main</name>
    <message>
      <source>Chat with large local GGUF models on small GPUs.</source>
      <translation>在小显存 GPU 上与本地大型 GGUF 模型对话。</translation>
    </message>
    <message>
      <source>A .gguf model to open.</source>
      <translation>要打开的 .gguf 模型。</translation>
    </message>
  </context>
</TS>
