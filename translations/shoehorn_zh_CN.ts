<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
  <context>
    <name>ApiController</name>
    <message>
      <source>other computers that reach %1 can use the API (with the key)</source>
      <translation>能访问 %1 的其他计算机可以使用此 API（需要密钥）</translation>
    </message>
    <message>
      <source>every web site you visit may send requests to the API from your browser</source>
      <translation>你访问的每个网站都可以从你的浏览器向此 API 发送请求</translation>
    </message>
    <message>
      <source>no key: every program on this computer can use the API</source>
      <translation>没有密钥：这台计算机上的每个程序都可以使用此 API</translation>
    </message>
  </context>
  <context>
    <name>ApiDialog</name>
    <message>
      <source>Local API</source>
      <translation>本地 API</translation>
    </message>
    <message>
      <source>Other programs (editor plugins, scripts, web front ends) can use the loaded model through the OpenAI-compatible API of llama.cpp's server. The model is not loaded again: the chat and the API share it.</source>
      <translation>其他程序（编辑器插件、脚本、网页前端）可以通过 llama.cpp 服务器的 OpenAI 兼容 API 使用已加载的模型。模型不会再次加载：聊天和 API 共用同一份模型。</translation>
    </message>
    <message>
      <source>Settings</source>
      <translation>设置</translation>
    </message>
    <message>
      <source>127.0.0.1: only this computer. 0.0.0.0: every network this computer is on (needs an API key).</source>
      <translation>127.0.0.1：仅本机。0.0.0.0：本机所在的所有网络（需要 API 密钥）。</translation>
    </message>
    <message>
      <source>Host:</source>
      <translation>主机：</translation>
    </message>
    <message>
      <source>Port:</source>
      <translation>端口：</translation>
    </message>
    <message>
      <source>Show</source>
      <translation>显示</translation>
    </message>
    <message>
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <source>New Key</source>
      <translation>新密钥</translation>
    </message>
    <message>
      <source>API key:</source>
      <translation>API 密钥：</translation>
    </message>
    <message>
      <source>Parallel requests:</source>
      <translation>并行请求：</translation>
    </message>
    <message>
      <source>Prometheus metrics at /metrics</source>
      <translation>在 /metrics 提供 Prometheus 指标</translation>
    </message>
    <message>
      <source>Serving</source>
      <translation>服务中</translation>
    </message>
    <message>
      <source>Slot</source>
      <translation>槽位</translation>
    </message>
    <message>
      <source>State</source>
      <translation>状态</translation>
    </message>
    <message>
      <source>Tokens</source>
      <translation>Token 数</translation>
    </message>
    <message>
      <source>Tokens/s</source>
      <translation>Token/秒</translation>
    </message>
    <message>
      <source>Last errors:</source>
      <translation>最近的错误：</translation>
    </message>
    <message>
      <source>Examples (they work as pasted while the API is on)</source>
      <translation>示例（API 开启时可直接粘贴使用）</translation>
    </message>
    <message>
      <source>Copy Example</source>
      <translation>复制示例</translation>
    </message>
    <message>
      <source>Stop API</source>
      <translation>停止 API</translation>
    </message>
    <message>
      <source>Start API</source>
      <translation>启动 API</translation>
    </message>
    <message>
      <source>Off.</source>
      <translation>已关闭。</translation>
    </message>
    <message>
      <source>Starting…</source>
      <translation>正在启动…</translation>
    </message>
    <message>
      <source>Stopping…</source>
      <translation>正在停止…</translation>
    </message>
    <message>
      <source>On: serving the loaded model.</source>
      <translation>已开启：正在提供已加载的模型。</translation>
    </message>
    <message>
      <source>Load a model first: the API serves the model the chat uses.</source>
      <translation>请先加载模型：API 提供的就是聊天所用的模型。</translation>
    </message>
    <message>
      <source>Use Port %1</source>
      <translation>使用端口 %1</translation>
    </message>
    <message>
      <source>busy</source>
      <translation>忙碌</translation>
    </message>
    <message>
      <source>idle</source>
      <translation>空闲</translation>
    </message>
    <message>
      <source>Start the API to get examples with its address and key.</source>
      <translation>启动 API 后即可获得包含地址和密钥的示例。</translation>
    </message>
    <message>
      <source>made when the API starts</source>
      <translation>在 API 启动时生成</translation>
    </message>
    <message>
      <source>No key: any program on this computer may use the API (127.0.0.1 only)</source>
      <translation>不使用密钥：这台计算机上的任何程序都可以使用此 API（仅限 127.0.0.1）</translation>
    </message>
    <message>
      <source>Web pages of other sites your browser may let use the API (llama-server's --cors-origins). localhost: pages served from this computer. Add origins such as https://app.example:3000, separated by commas. * lets every web site you visit use it. The API's own web chat is always allowed.</source>
      <translation>浏览器可以允许哪些其他网站的网页使用此 API（即 llama-server 的 --cors-origins）。localhost：由这台计算机提供的网页。可添加来源，例如 https://app.example:3000，用逗号分隔。* 表示你访问的每个网站都可以使用它。API 自带的网页聊天始终允许。</translation>
    </message>
    <message>
      <source>Web pages allowed:</source>
      <translation>允许的网页：</translation>
    </message>
    <message>
      <source>Requests answered at the same time (llama-server's --parallel), decoded in one batch with the chat. Part of the model's context: a change applies when a model is loaded next.</source>
      <translation>同时应答的请求数（即 llama-server 的 --parallel），与聊天在同一批次中解码。它是模型上下文的一部分：更改将在下次加载模型时生效。</translation>
    </message>
    <message>
      <source>The chat and these requests are slots of one llama.cpp context with one KV cache (llama.cpp's unified cache): each uses what the others leave free, up to the context set in the Offload panel. So the memory the plan shows is the same with the API on or off, and turning it on loads nothing.</source>
      <translation>聊天和这些请求是同一个 llama.cpp 上下文中的槽位，共用一个 KV 缓存（llama.cpp 的统一缓存）：每个槽位使用其他槽位剩下的空间，上限为“分配”面板中设置的上下文。因此无论 API 开启与否，计划显示的内存都相同，开启它也不会加载任何内容。</translation>
    </message>
    <message>
      <source>Context:</source>
      <translation>上下文：</translation>
    </message>
    <message>
      <source>%1 can be reached from other computers: it needs an API key (untick No key).</source>
      <translation>%1 可以被其他计算机访问：需要 API 密钥（请取消勾选“不使用密钥”）。</translation>
    </message>
    <message>
      <source>Requests: %1, of them refused: %2 (no or a wrong key, or a page of another site)</source>
      <translation>请求：%1，其中被拒绝：%2（没有密钥或密钥错误，或来自其他网站的网页）</translation>
    </message>
    <message>
      <source>Requests: %1</source>
      <translation>请求：%1</translation>
    </message>
    <message>
      <source>Open wider than this computer: %1.</source>
      <translation>开放范围超出这台计算机：%1。</translation>
    </message>
    <message>
      <source>Web chat in your browser: &lt;a href="%1"&gt;%1&lt;/a&gt;</source>
      <translation>在浏览器中使用网页聊天：&lt;a href="%1"&gt;%1&lt;/a&gt;</translation>
    </message>
    <message>
      <source>Web chat: not built into this Shoehorn (%1).</source>
      <translation>网页聊天：此 Shoehorn 未内置（%1）。</translation>
    </message>
    <message>
      <source>Shared with the chat: the Offload panel's context and KV cache. Turning the API on loads nothing and takes no more memory.</source>
      <translation>与聊天共用：“分配”面板中的上下文和 KV 缓存。开启 API 不会加载任何内容，也不会占用更多内存。</translation>
    </message>
    <message>
      <source>Paused while auto-tune measures the model: requests get 503 with Retry-After until it ends.</source>
      <translation>自动调优正在测量模型，API 暂停：结束前请求会收到 503 和 Retry-After。</translation>
    </message>
    <message>
      <source>Enter the address to listen on: 127.0.0.1 for this computer only, 0.0.0.0 for every network.</source>
      <translation>请输入要监听的地址：127.0.0.1 仅限本机，0.0.0.0 为所有网络。</translation>
    </message>
    <message>
      <source>%1 is not an address or a host name: 127.0.0.1 is this computer only, 0.0.0.0 every network.</source>
      <translation>%1 不是地址或主机名：127.0.0.1 仅限本机，0.0.0.0 为所有网络。</translation>
    </message>
    <message>
      <source>The API key was not saved; it works until Shoehorn quits. %1</source>
      <translation>API 密钥未能保存；在 Shoehorn 退出前仍可使用。%1</translation>
    </message>
  </context>
  <context>
    <name>AttachmentStrip</name>
    <message>
      <source>Attach Images</source>
      <translation>附加图片</translation>
    </message>
    <message>
      <source>Images (*.png *.jpg *.jpeg *.bmp *.gif);;All files (*)</source>
      <translation>图片 (*.png *.jpg *.jpeg *.bmp *.gif);;所有文件 (*)</translation>
    </message>
    <message>
      <source>Attach Image…</source>
      <translation>附加图片…</translation>
    </message>
    <message>
      <source>Add pictures to the message (or drop image files on the message box, or paste one)</source>
      <translation>给消息添加图片（也可以把图片文件拖到输入框，或直接粘贴）</translation>
    </message>
    <message>
      <source>%1 × %2 pixels, %3 KiB. Click to view.</source>
      <translation>%1 × %2 像素，%3 KiB。点击查看。</translation>
    </message>
    <message>
      <source>Remove this image</source>
      <translation>移除这张图片</translation>
    </message>
    <message>
      <source>This model cannot see images: its vision projector %1 could not be loaded (%2).</source>
      <translation>此模型无法识别图片：其视觉投影 %1 无法加载（%2）。</translation>
    </message>
    <message>
      <source>This model cannot see images: no vision projector (mmproj) is paired with it. Put its mmproj-*.gguf beside the model, or choose one under Model → Vision Projector.</source>
      <translation>此模型无法识别图片：没有为它配对视觉投影（mmproj）。请把对应的 mmproj-*.gguf 放在模型旁边，或在“模型 → 视觉投影”中选择一个。</translation>
    </message>
    <message>
      <source>Reading the image…</source>
      <translation>正在读取图片…</translation>
    </message>
  </context>
  <context>
    <name>BackendPicker</name>
    <message>
      <source>This card is seen by two backends. Shoehorn uses the first, as llama.cpp does; the other one can be faster for some cards and models (Auto-tune speed… measures both).</source>
      <translation>这张显卡可由两个后端使用。Shoehorn 与 llama.cpp 一样默认使用第一个；对某些显卡和模型，另一个可能更快（“自动调优速度…”会测量两者）。</translation>
    </message>
    <message>
      <source>%1 (default)</source>
      <translation>%1（默认）</translation>
    </message>
    <message>
      <source>The model runs on: %1</source>
      <translation>模型运行在：%1</translation>
    </message>
  </context>
  <context>
    <name>ChatController</name>
    <message>
      <source>Image</source>
      <translation>图片</translation>
    </message>
  </context>
  <context>
    <name>ChatList</name>
    <message>
      <source>Chats</source>
      <translation>对话列表</translation>
    </message>
    <message>
      <source>Search chats</source>
      <translation>搜索对话</translation>
    </message>
    <message>
      <source>New</source>
      <translation>新建</translation>
    </message>
    <message>
      <source>Rename</source>
      <translation>重命名</translation>
    </message>
    <message>
      <source>Delete</source>
      <translation>删除</translation>
    </message>
    <message>
      <source>Rename chat</source>
      <translation>重命名对话</translation>
    </message>
    <message>
      <source>Title</source>
      <translation>标题</translation>
    </message>
    <message>
      <source>Delete chat</source>
      <translation>删除对话</translation>
    </message>
    <message>
      <source>Delete the chat “%1” and all its messages? This cannot be undone.</source>
      <translation>删除对话“%1”及其全部消息？此操作无法撤销。</translation>
    </message>
    <message>
      <source>Rename…</source>
      <translation>重命名…</translation>
    </message>
    <message>
      <source>Delete…</source>
      <translation>删除…</translation>
    </message>
  </context>
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
      <source>Thought for %1 s</source>
      <translation>思考了 %1 秒</translation>
    </message>
    <message>
      <source>Thinking…</source>
      <translation>思考中…</translation>
    </message>
    <message>
      <source>Thoughts</source>
      <translation>思考过程</translation>
    </message>
    <message>
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <source>Image %1 of %2, %3 × %4 pixels. Click to view.</source>
      <translation>第 %1 张图片（共 %2 张），%3 × %4 像素。点击查看。</translation>
    </message>
    <message>
      <source>The code block is on the clipboard.</source>
      <translation>代码块已复制到剪贴板。</translation>
    </message>
    <message>
      <source>The message is on the clipboard.</source>
      <translation>消息已复制到剪贴板。</translation>
    </message>
    <message>
      <source>Image %1 of %2. Click to view.</source>
      <translation>第 %1 张图片（共 %2 张）。点击查看。</translation>
    </message>
  </context>
  <context>
    <name>Composer</name>
    <message>
      <source>Send</source>
      <translation>发送</translation>
    </message>
    <message>
      <source>The answer is still being written: your message stays here. Stop or Esc ends the answer.</source>
      <translation>回答仍在生成：你的消息会保留在这里。按“停止”或 Esc 结束回答。</translation>
    </message>
    <message>
      <source>The pasted image</source>
      <translation>粘贴的图片</translation>
    </message>
    <message>
      <source>Editing your message. Sending it drops the answers that followed.</source>
      <translation>正在编辑你的消息。发送后，其后的回答将被删除。</translation>
    </message>
    <message>
      <source>Cancel editing</source>
      <translation>取消编辑</translation>
    </message>
    <message>
      <source>Stop</source>
      <translation>停止</translation>
    </message>
    <message>
      <source>An attached image is still being read: send again in a moment.</source>
      <translation>附加的图片还在读取中：请稍后再发送。</translation>
    </message>
    <message>
      <source>This model cannot see images: the message was not sent.</source>
      <translation>此模型无法识别图片：消息未发送。</translation>
    </message>
  </context>
  <context>
    <name>ConversationPanel</name>
    <message>
      <source>Conversation</source>
      <translation>对话设置</translation>
    </message>
    <message>
      <source>System prompt</source>
      <translation>系统提示词</translation>
    </message>
    <message>
      <source>How the assistant should behave in this chat (optional)</source>
      <translation>助手在本对话中应如何表现（可选）</translation>
    </message>
    <message>
      <source>Use for new chats with this model</source>
      <translation>用于此模型的新对话</translation>
    </message>
    <message>
      <source>Thinking – general</source>
      <translation>思考 – 通用</translation>
    </message>
    <message>
      <source>Thinking – coding</source>
      <translation>思考 – 编程</translation>
    </message>
    <message>
      <source>Instruct – general</source>
      <translation>指令 – 通用</translation>
    </message>
    <message>
      <source>Instruct – reasoning</source>
      <translation>指令 – 推理</translation>
    </message>
    <message>
      <source>Model's suggestion</source>
      <translation>模型建议值</translation>
    </message>
    <message>
      <source>Custom</source>
      <translation>自定义</translation>
    </message>
    <message>
      <source>Preset</source>
      <translation>预设</translation>
    </message>
    <message>
      <source>Temperature</source>
      <translation>温度</translation>
    </message>
    <message>
      <source>Top-p</source>
      <translation>Top-p</translation>
    </message>
    <message>
      <source>off</source>
      <translation>关</translation>
    </message>
    <message>
      <source>Top-k</source>
      <translation>Top-k</translation>
    </message>
    <message>
      <source>Min-p</source>
      <translation>Min-p</translation>
    </message>
    <message>
      <source>Presence penalty</source>
      <translation>存在惩罚</translation>
    </message>
    <message>
      <source>Repeat penalty</source>
      <translation>重复惩罚</translation>
    </message>
    <message>
      <source>no limit</source>
      <translation>不限</translation>
    </message>
    <message>
      <source>Answer length limit</source>
      <translation>回答长度上限</translation>
    </message>
    <message>
      <source>Let the model think before answering</source>
      <translation>让模型先思考再回答</translation>
    </message>
    <message>
      <source>Use the model's suggestion</source>
      <translation>使用模型建议值</translation>
    </message>
    <message>
      <source>This model's chat template has no thinking switch.</source>
      <translation>此模型的对话模板没有思考开关。</translation>
    </message>
    <message>
      <source>This model suggests: temperature %1 · top-p %2 · top-k %3 · min-p %4</source>
      <translation>此模型建议：温度 %1 · top-p %2 · top-k %3 · min-p %4</translation>
    </message>
  </context>
  <context>
    <name>EmptyPage</name>
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
      <source>The file is incomplete. Was the download interrupted?</source>
      <translation>文件不完整。下载是否被中断？</translation>
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
    <message>
      <source>The port is already in use by another program, or this address cannot be used.</source>
      <translation>该端口已被其他程序占用，或此地址无法使用。</translation>
    </message>
    <message>
      <source>The local API could not start.</source>
      <translation>本地 API 无法启动。</translation>
    </message>
    <message>
      <source>The vision projector (mmproj) could not be loaded or run.</source>
      <translation>视觉投影（mmproj）无法加载或运行。</translation>
    </message>
    <message>
      <source>This model cannot see images: no vision projector (mmproj) is paired with it.</source>
      <translation>此模型无法识别图片：没有为它配对视觉投影（mmproj）。</translation>
    </message>
    <message>
      <source>The file does not exist: it may have been moved, renamed or deleted.</source>
      <translation>文件不存在：它可能已被移动、重命名或删除。</translation>
    </message>
    <message>
      <source>The file cannot be read: check that it is yours to read and that the disk is there.</source>
      <translation>无法读取该文件：请检查你是否有读取权限，以及磁盘是否可用。</translation>
    </message>
    <message>
      <source>This is not a GGUF model file: Shoehorn opens llama.cpp's .gguf models.</source>
      <translation>这不是 GGUF 模型文件：Shoehorn 打开的是 llama.cpp 的 .gguf 模型。</translation>
    </message>
    <message>
      <source>This GGUF version is not supported: get the model converted by a current llama.cpp.</source>
      <translation>不支持此 GGUF 版本：请使用由新版 llama.cpp 转换的模型。</translation>
    </message>
    <message>
      <source>The file is damaged or not a valid model: download it again, or get it from another source.</source>
      <translation>文件已损坏或不是有效的模型：请重新下载，或换一个来源。</translation>
    </message>
    <message>
      <source>A part of this split model is missing: put every part in the same folder.</source>
      <translation>此分片模型缺少一部分：请把所有分片放在同一个文件夹中。</translation>
    </message>
    <message>
      <source>The vision projector (mmproj) does not belong to this model: use the mmproj file that came with it.</source>
      <translation>该视觉投影（mmproj）与此模型不匹配：请使用与模型一同发布的 mmproj 文件。</translation>
    </message>
    <message>
      <source>The image cannot be used: attach a PNG, JPEG, BMP or GIF picture.</source>
      <translation>无法使用这张图片：请附加 PNG、JPEG、BMP 或 GIF 图片。</translation>
    </message>
    <message>
      <source>This file failed the safety check before loading: it would crash or hang Shoehorn, so it was not loaded. Get the model from another source, or one with a fixed chat template.</source>
      <translation>此文件未通过加载前的安全检查：它会让 Shoehorn 崩溃或卡住，因此没有加载。请换一个来源获取模型，或使用修复了聊天模板的版本。</translation>
    </message>
    <message>
      <source>A remote machine cannot be reached or used: check that its worker (shoehorn-cli rpc-worker) runs and that this computer may connect to it.</source>
      <translation>无法连接或使用远程计算机：请确认其工作进程（shoehorn-cli rpc-worker）正在运行，并且本机可以连接到它。</translation>
    </message>
    <message>
      <source>Speculative decoding is off: this model file has no MTP layer (it was converted without it). Choose n-gram or a draft model.</source>
      <translation>推测解码已关闭：此模型文件没有 MTP 层（转换时未保留）。请选择 n-gram 或草稿模型。</translation>
    </message>
    <message>
      <source>Speculative decoding is off: the model was loaded without its MTP layer. Reload it.</source>
      <translation>推测解码已关闭：模型加载时未包含其 MTP 层。请重新加载。</translation>
    </message>
    <message>
      <source>Speculative decoding is off: the draft model %1 cannot be read as a GGUF model.</source>
      <translation>推测解码已关闭：草稿模型 %1 无法作为 GGUF 模型读取。</translation>
    </message>
    <message>
      <source>Speculative decoding is off: the draft model %1 has another vocabulary than this model; a draft model must come from the same family.</source>
      <translation>推测解码已关闭：草稿模型 %1 的词表与此模型不同；草稿模型必须来自同一系列。</translation>
    </message>
    <message>
      <source>Speculative decoding is off: llama.cpp did not start it (%1).</source>
      <translation>推测解码已关闭：llama.cpp 未能启动它（%1）。</translation>
    </message>
    <message>
      <source>Retrying without speculative decoding (its draft context needs memory of its own).</source>
      <translation>正在关闭推测解码后重试（其草稿上下文需要单独的内存）。</translation>
    </message>
    <message>
      <source>The file cannot be written: check that the folder is yours to write in and that the disk has room.</source>
      <translation>无法写入该文件：请检查你是否有该文件夹的写入权限，以及磁盘是否还有空间。</translation>
    </message>
    <message>
      <source>its integrity check failed</source>
      <translation>完整性检查未通过</translation>
    </message>
    <message>
      <source>The chat history %1 was written by a newer version of Shoehorn (%2). It is open read-only: you can read your chats, but new ones are not saved.</source>
      <translation>聊天记录 %1 由更新版本的 Shoehorn 写入（%2）。它以只读方式打开：你可以阅读对话，但新对话不会被保存。</translation>
    </message>
    <message>
      <source>The chat history cannot be created at %1 (%2): chats are not saved.</source>
      <translation>无法在 %1 创建聊天记录（%2）：对话不会被保存。</translation>
    </message>
    <message>
      <source>The chat history %1 cannot be read (%2), and it cannot be moved aside: chats are not saved until it is fixed or removed.</source>
      <translation>无法读取聊天记录 %1（%2），也无法将其移开：在修复或删除它之前，对话不会被保存。</translation>
    </message>
    <message>
      <source>The chat history %1 could not be read (%2). It was moved, unchanged, to %3, and a new history was started.</source>
      <translation>无法读取聊天记录 %1（%2）。它已原样移到 %3，并已新建聊天记录。</translation>
    </message>
    <message>
      <source>The chat history %1 could not be read (%2); it was moved to %3, but a new one cannot be created (%4): chats are not saved.</source>
      <translation>无法读取聊天记录 %1（%2）；它已移到 %3，但无法新建聊天记录（%4）：对话不会被保存。</translation>
    </message>
    <message>
      <source>the new chat</source>
      <translation>新对话</translation>
    </message>
    <message>
      <source>the chat's settings</source>
      <translation>对话的设置</translation>
    </message>
    <message>
      <source>the chat's new name</source>
      <translation>对话的新名称</translation>
    </message>
    <message>
      <source>deleting the chat</source>
      <translation>删除对话</translation>
    </message>
    <message>
      <source>the chat's model</source>
      <translation>对话的模型</translation>
    </message>
    <message>
      <source>your message</source>
      <translation>你的消息</translation>
    </message>
    <message>
      <source>the answer</source>
      <translation>回答</translation>
    </message>
    <message>
      <source>the new version of the answer</source>
      <translation>回答的新版本</translation>
    </message>
    <message>
      <source>the edited message</source>
      <translation>编辑后的消息</translation>
    </message>
    <message>
      <source>deleting the message</source>
      <translation>删除消息</translation>
    </message>
    <message>
      <source>the version shown</source>
      <translation>显示的版本</translation>
    </message>
    <message>
      <source>Speculative decoding is off: the draft model %1 failed the safety check before loading (%2).</source>
      <translation>推测解码已关闭：草稿模型 %1 在加载前未通过安全检查（%2）。</translation>
    </message>
    <message>
      <source>The model is busy: wait until it has finished loading, answering or being tuned.</source>
      <translation>模型正忙：请等它加载、回答或自动调优结束。</translation>
    </message>
  </context>
  <context>
    <name>FitExplanation</name>
    <message>
      <source>Open or pick a model to see what fits.</source>
      <translation>打开或选择一个模型，查看能放下多少。</translation>
    </message>
    <message>
      <source>This file cannot be read.</source>
      <translation>无法读取此文件。</translation>
    </message>
    <message>
      <source>Everything fits on the GPU: all %1 layers, %2 context, %3 KV cache.</source>
      <translation>全部放进 GPU：%1 层，%2 上下文，%3 KV 缓存。</translation>
    </message>
    <message>
      <source>All %1 layers on the GPU; the experts of the first %2 layers stay in RAM so that %3 context with a %4 KV cache fits.</source>
      <translation>%1 层全部放在 GPU；前 %2 层的专家留在内存，这样 %3 上下文和 %4 KV 缓存才能放下。</translation>
    </message>
    <message>
      <source>%1 of %2 layers on the GPU, the rest in RAM, with %3 context and a %4 KV cache.</source>
      <translation>%2 层中有 %1 层在 GPU，其余在内存；%3 上下文，%4 KV 缓存。</translation>
    </message>
    <message>
      <source>No GPU to plan for: everything runs on the CPU, with %1 context.</source>
      <translation>没有可用的 GPU：全部在 CPU 上运行，%1 上下文。</translation>
    </message>
    <message>
      <source>GPU layers</source>
      <translation>GPU 层数</translation>
    </message>
    <message>
      <source>Experts on CPU</source>
      <translation>CPU 上的专家</translation>
    </message>
    <message>
      <source>Context</source>
      <translation>上下文</translation>
    </message>
    <message>
      <source>KV cache</source>
      <translation>KV 缓存</translation>
    </message>
    <message>
      <source>Nothing fits while "%1" is locked. Unlock it and run Auto-fit again.</source>
      <translation>锁定“%1”时放不下。请解锁后再次运行自动适配。</translation>
    </message>
    <message>
      <source>This model does not fit in %1, not even with everything in RAM.</source>
      <translation>即使全部放在内存中，这个模型也放不进%1。</translation>
    </message>
    <message>
      <source>Too much for %1: move layers or experts to the CPU, or press Auto-fit.</source>
      <translation>%1 放不下：把层或专家移到 CPU，或点击“自动适配”。</translation>
    </message>
    <message>
      <source>Not enough RAM for this plan: try a smaller context or put more on the GPU.</source>
      <translation>内存不足：请缩小上下文或把更多内容放到 GPU。</translation>
    </message>
    <message>
      <source>Runs on the CPU: %1 of RAM.</source>
      <translation>在 CPU 上运行：占用 %1 内存。</translation>
    </message>
    <message>
      <source>Fits: %1 on the GPU, %2 in RAM.</source>
      <translation>放得下：GPU %1，内存 %2。</translation>
    </message>
    <message>
      <source>The %1 KV cache stores blocks of %2 values, so it needs a head size that is a multiple of %2; this model's head size is %3. Choose f16 for the KV cache.</source>
      <translation>%1 KV 缓存按每块 %2 个值存储，因此要求注意力头大小是 %2 的倍数；此模型的头大小为 %3。请为 KV 缓存选择 f16。</translation>
    </message>
    <message>
      <source>%1 %2 layers (%3 of %4)</source>
      <translation>%1 %2 层（%3 / %4）</translation>
    </message>
    <message>
      <source>Split: %1.</source>
      <translation>划分：%1。</translation>
    </message>
    <message>
      <source>the remote machine %1</source>
      <translation>远程计算机 %1</translation>
    </message>
    <message>
      <source>the devices %1</source>
      <translation>设备 %1</translation>
    </message>
    <message>
      <source>Everything fits on %1: all %2 layers, %3 context, %4 KV cache.</source>
      <translation>全部放进%1：%2 层，%3 上下文，%4 KV 缓存。</translation>
    </message>
    <message>
      <source>All %1 layers on %2; the experts of the first %3 layers stay in RAM so that %4 context with a %5 KV cache fits.</source>
      <translation>%1 层全部放在%2；前 %3 层的专家留在内存，这样 %4 上下文和 %5 KV 缓存才能放下。</translation>
    </message>
    <message>
      <source>%1 of %2 layers on %3, the rest in RAM, with %4 context and a %5 KV cache.</source>
      <translation>%2 层中有 %1 层在%3，其余在内存；%4 上下文，%5 KV 缓存。</translation>
    </message>
    <message>
      <source>Fits: %1 on %2, %3 in RAM.</source>
      <translation>放得下：%2 %1，内存 %3。</translation>
    </message>
    <message>
      <source>%1 needs %2 of %3</source>
      <translation>%1 需要 %2，只有 %3</translation>
    </message>
    <message>
      <source>RAM needs %1 of %2</source>
      <translation>内存需要 %1，只有 %2</translation>
    </message>
    <message>
      <source>Does not fit: the %1 KV cache needs a head size that is a multiple of %2 (this model: %3) — choose f16</source>
      <translation>放不下：%1 KV 缓存要求头维度是 %2 的倍数（此模型：%3）— 请选 f16</translation>
    </message>
    <message>
      <source> on %1</source>
      <translation>（%1）</translation>
    </message>
    <message>
      <source>Does not fit%1: %2 — press Auto-fit</source>
      <translation>放不下%1：%2 — 请点击“自动适配”</translation>
    </message>
    <message>
      <source>Fits on %1: %2 in RAM, no GPU.</source>
      <translation>放得下（%1）：内存 %2，无 GPU。</translation>
    </message>
    <message>
      <source>Fits%1: %2 on the GPU, %3 in RAM.</source>
      <translation>放得下%1：GPU %2，内存 %3。</translation>
    </message>
    <message>
      <source>Fits%1: %2 on %3, %4 in RAM.</source>
      <translation>放得下%1：%3 %2，内存 %4。</translation>
    </message>
    <message>
      <source>Speculative decoding takes %1 of GPU memory for its draft context; turned off, that goes to layers or context.</source>
      <translation>推测解码的草稿上下文占用 %1 显存；关闭它，这部分可用于更多层或更长的上下文。</translation>
    </message>
    <message>
      <source>Nothing fits in %1 with the margin kept free on the GPU: lower the margin.</source>
      <translation>在 GPU 上保留余量后，%1 放不下任何方案：请调低余量。</translation>
    </message>
    <message>
      <source>Nothing fits on the GPU with the margin kept free: everything runs on the CPU, with %1 context. Lower the margin to use the GPU.</source>
      <translation>保留余量后 GPU 上放不下任何部分：全部在 CPU 上运行，上下文 %1。调低余量即可使用 GPU。</translation>
    </message>
    <message>
      <source>The GPU has no room for this model: everything runs on the CPU, with %1 context.</source>
      <translation>GPU 没有空间容纳此模型：全部在 CPU 上运行，上下文 %1。</translation>
    </message>
  </context>
  <context>
    <name>GaugeBar</name>
    <message>
      <source>Available: %1 of %2</source>
      <translation>可用：%1 / %2</translation>
    </message>
    <message>
      <source>%1 of %2 — does not fit</source>
      <translation>%1 / %2 — 放不下</translation>
    </message>
    <message>
      <source>%1 of %2</source>
      <translation>%1 / %2</translation>
    </message>
    <message>
      <source>Loaded: llama.cpp allocated %1, %2%3 (%4%) against the plan</source>
      <translation>已加载：llama.cpp 实际分配 %1，比规划 %2%3（%4%）</translation>
    </message>
    <message>
      <source>%1 MiB</source>
      <translation>%1 MiB</translation>
    </message>
    <message>
      <source>%1: %2
%3% of the %4 planned for %5</source>
      <translation>%1：%2
占为 %5 规划的 %4 的 %3%</translation>
    </message>
    <message>
      <source>Allocated at load: %1 (%2%3%)</source>
      <translation>加载时分配：%1（%2%3%）</translation>
    </message>
  </context>
  <context>
    <name>GaugeStack</name>
    <message>
      <source>weights</source>
      <translation>权重</translation>
    </message>
    <message>
      <source>experts</source>
      <translation>专家</translation>
    </message>
    <message>
      <source>KV cache</source>
      <translation>KV 缓存</translation>
    </message>
    <message>
      <source>compute</source>
      <translation>计算缓冲</translation>
    </message>
    <message>
      <source>RAM</source>
      <translation>内存</translation>
    </message>
    <message>
      <source>vision projector</source>
      <translation>视觉投影</translation>
    </message>
    <message>
      <source>Hover over a part of a bar for its exact size.</source>
      <translation>把鼠标移到条形的某一段上，可查看它的精确大小。</translation>
    </message>
    <message>
      <source>file pages (reclaimable)</source>
      <translation>文件页（可回收）</translation>
    </message>
    <message>
      <source>speculation: weights</source>
      <translation>推测解码：权重</translation>
    </message>
    <message>
      <source>speculation: KV cache</source>
      <translation>推测解码：KV 缓存</translation>
    </message>
    <message>
      <source>speculation: compute</source>
      <translation>推测解码：计算</translation>
    </message>
  </context>
  <context>
    <name>ImageViewer</name>
    <message>
      <source>Image, %1 × %2 pixels</source>
      <translation>图片，%1 × %2 像素</translation>
    </message>
    <message>
      <source>Opening the picture…</source>
      <translation>正在打开图片…</translation>
    </message>
    <message>
      <source>This picture cannot be read.</source>
      <translation>无法读取这张图片。</translation>
    </message>
  </context>
  <context>
    <name>LanguageMenu</name>
    <message>
      <source>&amp;Language</source>
      <translation>语言(&amp;L)</translation>
    </message>
    <message>
      <source>System language</source>
      <translation>系统语言</translation>
    </message>
    <message>
      <source>Language</source>
      <translation>语言</translation>
    </message>
    <message>
      <source>Shoehorn will use the new language the next time it starts.</source>
      <translation>Shoehorn 下次启动时将使用新语言。</translation>
    </message>
  </context>
  <context>
    <name>LoadStrip</name>
    <message>
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <source>Loading %1…</source>
      <translation>正在加载 %1…</translation>
    </message>
    <message>
      <source>Loading %1… %2% · about %3 s left</source>
      <translation>正在加载 %1… %2% · 约剩 %3 秒</translation>
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
      <source>Loading cancelled.</source>
      <translation>已取消加载。</translation>
    </message>
    <message>
      <source>&amp;View</source>
      <translation>视图(&amp;V)</translation>
    </message>
    <message>
      <source>Loaded after running out of memory: %1</source>
      <translation>内存不足后已用更保守的设置加载：%1</translation>
    </message>
    <message>
      <source>Import llama-server presets</source>
      <translation>导入 llama-server 预设</translation>
    </message>
    <message>
      <source>Preset files (*.ini);;All files (*)</source>
      <translation>预设文件 (*.ini);;所有文件 (*)</translation>
    </message>
    <message>
      <source>&amp;Import llama-server Presets…</source>
      <translation>导入 llama-server 预设(&amp;I)…</translation>
    </message>
    <message>
      <source>Cannot import presets</source>
      <translation>无法导入预设</translation>
    </message>
    <message>
      <source>This is not a llama-server preset file: %1</source>
      <translation>这不是 llama-server 预设文件：%1</translation>
    </message>
    <message numerus="yes">
      <source>Imported settings for %n model(s); they are listed under Models.</source>
      <translation>
        <numerusform>已导入 %n 个模型的设置，它们列在“模型”中。</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>%n section(s) without a model file were skipped.</source>
      <translation>
        <numerusform>跳过了 %n 个没有模型文件的小节。</numerusform>
      </translation>
    </message>
    <message>
      <source>Line %1 [%2] %3: %4</source>
      <translation>第 %1 行 [%2] %3：%4</translation>
    </message>
    <message>
      <source>Presets imported</source>
      <translation>预设已导入</translation>
    </message>
    <message>
      <source>Export chat</source>
      <translation>导出对话</translation>
    </message>
    <message>
      <source>Model not found</source>
      <translation>找不到模型</translation>
    </message>
    <message>
      <source>This chat's model is no longer at %1.</source>
      <translation>此对话的模型已不在 %1。</translation>
    </message>
    <message>
      <source>Locate the file to load it and keep chatting.</source>
      <translation>找到该文件即可加载并继续对话。</translation>
    </message>
    <message>
      <source>Locate…</source>
      <translation>查找…</translation>
    </message>
    <message>
      <source>Locate the model</source>
      <translation>查找模型</translation>
    </message>
    <message>
      <source>&amp;Export Chat…</source>
      <translation>导出对话(&amp;E)…</translation>
    </message>
    <message>
      <source>Import Chat…</source>
      <translation>导入对话…</translation>
    </message>
    <message>
      <source>There is nothing to export yet: this chat has no messages.</source>
      <translation>暂无可导出的内容：此对话还没有消息。</translation>
    </message>
    <message>
      <source>chat</source>
      <translation>对话</translation>
    </message>
    <message>
      <source>Markdown (*.md);;JSON (*.json)</source>
      <translation>Markdown (*.md);;JSON (*.json)</translation>
    </message>
    <message>
      <source>Cannot export the chat</source>
      <translation>无法导出对话</translation>
    </message>
    <message>
      <source>Writing %1 failed: %2</source>
      <translation>写入 %1 失败：%2</translation>
    </message>
    <message>
      <source>Chat exported to %1</source>
      <translation>对话已导出到 %1</translation>
    </message>
    <message>
      <source>Import a chat</source>
      <translation>导入对话</translation>
    </message>
    <message>
      <source>Shoehorn chats (*.json);;All files (*)</source>
      <translation>Shoehorn 对话 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
      <source>Wait until the answer is finished.</source>
      <translation>请等待回答完成。</translation>
    </message>
    <message>
      <source>Cannot import the chat</source>
      <translation>无法导入对话</translation>
    </message>
    <message>
      <source>%1 is not a chat Shoehorn can read: %2</source>
      <translation>%1 不是 Shoehorn 能读取的对话：%2</translation>
    </message>
    <message>
      <source>Shoehorn could not save %1 in the chat history: %2</source>
      <translation>Shoehorn 无法将%1保存到聊天记录：%2</translation>
    </message>
    <message>
      <source>Chat history not saved</source>
      <translation>聊天记录未保存</translation>
    </message>
    <message>
      <source>Chat history</source>
      <translation>聊天记录</translation>
    </message>
    <message>
      <source>The answer does not stop: the model is busy where Shoehorn cannot interrupt it (for example a chat template that never finishes). Your chats are saved. Quit Shoehorn?</source>
      <translation>回答没有停止：模型正忙于 Shoehorn 无法打断的工作（例如永远不会结束的聊天模板）。你的对话已保存。要退出 Shoehorn 吗？</translation>
    </message>
    <message>
      <source>The answer does not stop</source>
      <translation>回答没有停止</translation>
    </message>
    <message>
      <source>API: %1</source>
      <translation>API：%1</translation>
    </message>
    <message>
      <source>&amp;Serve</source>
      <translation>服务(&amp;S)</translation>
    </message>
    <message>
      <source>&amp;Local API…</source>
      <translation>本地 API(&amp;L)…</translation>
    </message>
    <message>
      <source>&amp;Model</source>
      <translation>模型(&amp;M)</translation>
    </message>
    <message>
      <source>%1 could not be opened.</source>
      <translation>无法打开 %1。</translation>
    </message>
    <message>
      <source>&amp;Remote Machines…</source>
      <translation>远程计算机(&amp;R)…</translation>
    </message>
    <message>
      <source>API: %1 (paused while auto-tune measures)</source>
      <translation>API：%1（自动调优测量期间暂停）</translation>
    </message>
    <message>
      <source>This model's chat template cannot be used (%1): chats use ChatML instead, which may not be the format the model was trained on.</source>
      <translation>无法使用此模型的聊天模板（%1）：对话改用 ChatML，这可能不是模型训练时使用的格式。</translation>
    </message>
    <message>
      <source>Exporting the chat to %1…</source>
      <translation>正在把对话导出到 %1…</translation>
    </message>
    <message>
      <source>The chat was imported: it is in the Chats list.</source>
      <translation>对话已导入：可在“对话列表”中找到。</translation>
    </message>
  </context>
  <context>
    <name>MessageFooter</name>
    <message>
      <source>Stopped</source>
      <translation>已停止</translation>
    </message>
    <message>
      <source>Failed</source>
      <translation>失败</translation>
    </message>
    <message numerus="yes">
      <source>%n token(s)</source>
      <translation>
        <numerusform>%n 个词元</numerusform>
      </translation>
    </message>
    <message>
      <source>%1 tok/s</source>
      <translation>%1 词元/秒</translation>
    </message>
    <message>
      <source>first token %1 ms</source>
      <translation>首词元 %1 毫秒</translation>
    </message>
    <message>
      <source>finished</source>
      <translation>已完成</translation>
    </message>
    <message>
      <source>stop string</source>
      <translation>遇到停止字符串</translation>
    </message>
    <message>
      <source>token limit reached</source>
      <translation>达到长度上限</translation>
    </message>
    <message>
      <source>context full</source>
      <translation>上下文已满</translation>
    </message>
    <message numerus="yes">
      <source>%n older message(s) left out to fit the context</source>
      <translation>
        <numerusform>为适应上下文，省略了 %n 条较早的消息</numerusform>
      </translation>
    </message>
    <message>
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <source>Edit</source>
      <translation>编辑</translation>
    </message>
    <message>
      <source>Regenerate</source>
      <translation>重新生成</translation>
    </message>
    <message>
      <source>Answer</source>
      <translation>回答</translation>
    </message>
    <message>
      <source>Delete</source>
      <translation>删除</translation>
    </message>
    <message>
      <source>speculative: %1 of %2 drafted tokens accepted (%3 %)</source>
      <translation>推测解码：%2 个草稿 token 中接受了 %1 个（%3 %）</translation>
    </message>
    <message>
      <source>Failed: %1</source>
      <translation>失败：%1</translation>
    </message>
    <message>
      <source>Stopped before the answer began</source>
      <translation>在回答开始前已停止</translation>
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
    <message>
      <source>Add a folder…</source>
      <translation>添加文件夹…</translation>
    </message>
    <message>
      <source>Shoehorn lists every GGUF model in the folder and its subfolders.</source>
      <translation>Shoehorn 会列出该文件夹及其子文件夹中的所有 GGUF 模型。</translation>
    </message>
    <message>
      <source>Choose a folder with models</source>
      <translation>选择存放模型的文件夹</translation>
    </message>
  </context>
  <context>
    <name>ModelLibrary</name>
    <message>
      <source>Unsloth Dynamic: important layers keep more bits than the name says.</source>
      <translation>Unsloth 动态量化：重要的层保留比名称更多的比特。</translation>
    </message>
    <message>
      <source>16-bit weights: no quantization loss, twice the size of Q8_0.</source>
      <translation>16 位权重：没有量化损失，体积是 Q8_0 的两倍。</translation>
    </message>
    <message>
      <source>32-bit weights: unquantized.</source>
      <translation>32 位权重：未量化。</translation>
    </message>
    <message>
      <source>About %1 bits per weight: fewer bits, smaller and faster, less accurate.</source>
      <translation>每个权重约 %1 比特：比特越少，越小越快，精度越低。</translation>
    </message>
    <message>
      <source>I-quant: better quality at low bits, often slower on the CPU.</source>
      <translation>I 量化：低比特下质量更好，但在 CPU 上通常更慢。</translation>
    </message>
    <message>
      <source>K-quant: blocks with their own scales; sensitive tensors get more bits.</source>
      <translation>K 量化：分块各自缩放；敏感的张量分配更多比特。</translation>
    </message>
    <message>
      <source>XL: the largest, most accurate variant of this size.</source>
      <translation>XL：同档位中最大、最精确的版本。</translation>
    </message>
    <message>
      <source>L: a larger, more accurate variant.</source>
      <translation>L：更大、更精确的版本。</translation>
    </message>
    <message>
      <source>M: the usual balance of size and quality.</source>
      <translation>M：体积与质量的常用平衡。</translation>
    </message>
    <message>
      <source>S/XS: smaller and less accurate.</source>
      <translation>S/XS：更小，精度更低。</translation>
    </message>
    <message>
      <source>Name</source>
      <translation>名称</translation>
    </message>
    <message>
      <source>Architecture</source>
      <translation>架构</translation>
    </message>
    <message>
      <source>Parameters</source>
      <translation>参数量</translation>
    </message>
    <message>
      <source>Quant</source>
      <translation>量化</translation>
    </message>
    <message>
      <source>Size</source>
      <translation>大小</translation>
    </message>
    <message>
      <source>Context</source>
      <translation>上下文</translation>
    </message>
    <message>
      <source>Fit</source>
      <translation>能否放下</translation>
    </message>
    <message>
      <source>%1 (%2 active)</source>
      <translation>%1（激活 %2）</translation>
    </message>
    <message>
      <source>unreadable</source>
      <translation>无法读取</translation>
    </message>
    <message>
      <source>fits on the GPU</source>
      <translation>可全部放进 GPU</translation>
    </message>
    <message>
      <source>GPU + RAM</source>
      <translation>GPU + 内存</translation>
    </message>
    <message>
      <source>CPU only</source>
      <translation>仅 CPU</translation>
    </message>
    <message>
      <source>too big</source>
      <translation>放不下</translation>
    </message>
    <message>
      <source>Images</source>
      <translation>图片</translation>
    </message>
    <message>
      <source>not for this model</source>
      <translation>不适用于此模型</translation>
    </message>
    <message>
      <source>No vision projector (mmproj*.gguf) beside this model</source>
      <translation>此模型旁边没有视觉投影（mmproj*.gguf）</translation>
    </message>
    <message>
      <source>Vision projectors beside it:
%1</source>
      <translation>模型旁边的视觉投影：
%1</translation>
    </message>
    <message>
      <source>off</source>
      <translation>关</translation>
    </message>
    <message>
      <source>%1 — loading %2%</source>
      <translation>%1 — 正在加载 %2%</translation>
    </message>
  </context>
  <context>
    <name>OffloadPanel</name>
    <message>
      <source>Offload</source>
      <translation>分配</translation>
    </message>
    <message>
      <source>Plan for</source>
      <translation>规划目标</translation>
    </message>
    <message>
      <source> MiB</source>
      <translation> MiB</translation>
    </message>
    <message>
      <source>whole card</source>
      <translation>整张显卡</translation>
    </message>
    <message>
      <source>Use at most this much of each GPU, as if the card were smaller.</source>
      <translation>每块 GPU 最多使用这么多显存，就像显卡更小一样。</translation>
    </message>
    <message>
      <source>VRAM budget</source>
      <translation>显存预算</translation>
    </message>
    <message>
      <source>Auto-fit leaves this much of every GPU free.</source>
      <translation>自动适配会在每块 GPU 上留出这么多空闲显存。</translation>
    </message>
    <message>
      <source>Auto-fit</source>
      <translation>自动适配</translation>
    </message>
    <message>
      <source>Load</source>
      <translation>加载</translation>
    </message>
    <message>
      <source>Copy as llama-server command</source>
      <translation>复制为 llama-server 命令</translation>
    </message>
    <message>
      <source>This computer</source>
      <translation>本机</translation>
    </message>
    <message>
      <source>Reload</source>
      <translation>重新加载</translation>
    </message>
    <message numerus="yes">
      <source>%n layer(s)</source>
      <translation>
        <numerusform>%n 层</numerusform>
      </translation>
    </message>
    <message>
      <source>%1 experts, %2 active</source>
      <translation>%1 个专家，激活 %2 个</translation>
    </message>
    <message>
      <source>No model selected.</source>
      <translation>未选择模型。</translation>
    </message>
    <message>
      <source>Add…</source>
      <translation>添加…</translation>
    </message>
    <message>
      <source>Add a what-if machine: a card and RAM size to plan for.</source>
      <translation>添加一台假想的机器：指定显卡和内存大小来做规划。</translation>
    </message>
    <message>
      <source>Auto-tune speed…</source>
      <translation>自动调优速度…</translation>
    </message>
    <message>
      <source>Measure the configurations that fit this computer and keep the fastest.</source>
      <translation>测量本机能放下的各种配置，保留最快的一个。</translation>
    </message>
    <message>
      <source>Reading %1…</source>
      <translation>正在读取 %1…</translation>
    </message>
    <message>
      <source>%1 cannot be read: %2</source>
      <translation>无法读取 %1：%2</translation>
    </message>
    <message>
      <source>Margin</source>
      <translation>余量</translation>
    </message>
    <message>
      <source>Find the placement and context that fit the machine planned for.</source>
      <translation>为所规划的机器找出放得下的分配方式和上下文长度。</translation>
    </message>
    <message>
      <source>Reload on this computer</source>
      <translation>在本机重新加载</translation>
    </message>
    <message>
      <source>Load on this computer</source>
      <translation>在本机加载</translation>
    </message>
    <message>
      <source>The llama-server command is on the clipboard.</source>
      <translation>llama-server 命令已复制到剪贴板。</translation>
    </message>
    <message>
      <source>Fitting…</source>
      <translation>正在适配…</translation>
    </message>
  </context>
  <context>
    <name>OffloadTexts</name>
    <message numerus="yes">
      <source>RAM: %1 available of %2 · %n physical core(s)</source>
      <translation>
        <numerusform>内存：可用 %1 / %2 · %n 个物理核心</numerusform>
      </translation>
    </message>
    <message>
      <source>The loaded model holds %1 more; plans count it as free.</source>
      <translation>已加载的模型另占用 %1；规划时把它算作可用内存。</translation>
    </message>
    <message>
      <source>RAM: %1 only Shoehorn holds (KV cache, compute, weights read or repacked into memory) · %2 model file pages kept by mmap (the system can reclaim them).</source>
      <translation>内存：%1 仅由 Shoehorn 占用（KV 缓存、计算缓冲、读入或重排到内存中的权重）· %2 为 mmap 保留的模型文件页（系统可回收）。</translation>
    </message>
    <message>
      <source>Checking with llama.cpp's dry run…</source>
      <translation>正在用 llama.cpp 试运行核对…</translation>
    </message>
    <message>
      <source>llama.cpp's dry run failed: %1</source>
      <translation>llama.cpp 试运行失败：%1</translation>
    </message>
    <message>
      <source>%1: %2 (plan %3, %4%)</source>
      <translation>%1：%2（规划 %3，%4%）</translation>
    </message>
    <message>
      <source>RAM</source>
      <translation>内存</translation>
    </message>
    <message>
      <source>llama.cpp's dry run — %1</source>
      <translation>llama.cpp 试运行 — %1</translation>
    </message>
    <message>
      <source>on the GPU</source>
      <translation>在 GPU 上</translation>
    </message>
    <message>
      <source>on the CPU</source>
      <translation>在 CPU 上</translation>
    </message>
    <message>
      <source>Images: %1 (%2, %3).</source>
      <translation>图片：%1（%2，%3）。</translation>
    </message>
    <message>
      <source>A 1024×1024 picture takes %1 tokens, %2% of the context.</source>
      <translation>一张 1024×1024 的图片占 %1 个 token，即上下文的 %2%。</translation>
    </message>
    <message>
      <source>Resident now: Shoehorn holds %1 for it and %2 of the model file is in memory. Memory counts once used, so this stays under the plan until a long prompt has filled the compute buffer; the gauges compare what llama.cpp allocated.</source>
      <translation>当前驻留：Shoehorn 为它占用 %1，模型文件有 %2 在内存中。内存在用到时才计入，所以在长提示词填满计算缓冲之前会低于规划；仪表比较的是 llama.cpp 实际分配的量。</translation>
    </message>
    <message numerus="yes">
      <source>What-if machine %1: no GPU, %2 of RAM, %n core(s).</source>
      <translation>
        <numerusform>假设机器 %1：无 GPU，内存 %2，%n 个核心。</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>What-if machine %1: %2 with %3 (planned with %4 free), %5 of RAM (%6 free), %n core(s).</source>
      <translation>
        <numerusform>假设机器 %1：%2，显存 %3（按可用 %4 规划），内存 %5（可用 %6），%n 个核心。</numerusform>
      </translation>
    </message>
    <message>
      <source>What-if machine: planned, not measured.</source>
      <translation>假设机器：仅规划，未实测。</translation>
    </message>
    <message>
      <source>RAM %1</source>
      <translation>内存 %1</translation>
    </message>
    <message>
      <source>Allocated at load: %1 against the plan.</source>
      <translation>加载时分配：与规划相比 %1。</translation>
    </message>
    <message>
      <source>llama.cpp's dry run: %1 against the plan.</source>
      <translation>llama.cpp 试运行：与规划相比 %1。</translation>
    </message>
    <message>
      <source>%1 · %2: %3 free of %4</source>
      <translation>%1 · %2：空闲 %3 / %4</translation>
    </message>
    <message>
      <source>CPU kernels: %1 (the best of Shoehorn's builds that this CPU runs).</source>
      <translation>CPU 内核：%1（Shoehorn 各构建中此 CPU 能运行的最佳一个）。</translation>
    </message>
    <message>
      <source>No GPU: this build of Shoehorn has no GPU backend (built for the CPU only).</source>
      <translation>没有 GPU：此版本的 Shoehorn 没有 GPU 后端（只为 CPU 构建）。</translation>
    </message>
    <message>
      <source>Vulkan is not installed (the package shoehorn-backend-vulkan).</source>
      <translation>未安装 Vulkan（软件包 shoehorn-backend-vulkan）。</translation>
    </message>
    <message>
      <source>No CPU module was found in %1.</source>
      <translation>在 %1 中没有找到 CPU 模块。</translation>
    </message>
    <message>
      <source>The %1 module did not load: %2.</source>
      <translation>%1 模块未能加载：%2。</translation>
    </message>
    <message>
      <source>Vulkan found no GPU: no Vulkan driver for it is installed (mesa-vulkan-drivers for AMD and Intel, the NVIDIA driver for NVIDIA), or there is no GPU.</source>
      <translation>Vulkan 没有找到 GPU：未安装对应的 Vulkan 驱动（AMD 和 Intel 用 mesa-vulkan-drivers，NVIDIA 用 NVIDIA 驱动），或者没有 GPU。</translation>
    </message>
    <message>
      <source>%1 found no GPU (no driver for it, or no such GPU).</source>
      <translation>%1 没有找到 GPU（没有对应驱动，或没有这种 GPU）。</translation>
    </message>
    <message>
      <source>No GPU: Shoehorn runs on the CPU.</source>
      <translation>没有 GPU：Shoehorn 在 CPU 上运行。</translation>
    </message>
    <message>
      <source>CUDA needs NVIDIA's driver (%1 is not installed); NVIDIA cards can run on Vulkan.</source>
      <translation>CUDA 需要 NVIDIA 驱动（未安装 %1）；NVIDIA 显卡可以通过 Vulkan 运行。</translation>
    </message>
    <message>
      <source>The NVIDIA driver runs CUDA %1; Shoehorn's CUDA module needs CUDA 13 (driver 580 or newer), so NVIDIA cards run on Vulkan.</source>
      <translation>NVIDIA 驱动支持 CUDA %1；Shoehorn 的 CUDA 模块需要 CUDA 13（驱动 580 或更新），因此 NVIDIA 显卡通过 Vulkan 运行。</translation>
    </message>
    <message>
      <source>The CUDA module has no code for %1, so this card runs on Vulkan.</source>
      <translation>CUDA 模块没有适用于 %1 的代码，因此这张显卡通过 Vulkan 运行。</translation>
    </message>
    <message>
      <source>(also seen as %1: the model uses one of the two, chosen under GPU backend)</source>
      <translation>（也显示为 %1：模型只用其中一个，在“GPU 后端”中选择）</translation>
    </message>
  </context>
  <context>
    <name>PlanSummary</name>
    <message>
      <source>Details</source>
      <translation>详情</translation>
    </message>
    <message>
      <source>The whole explanation: what the plan does and why, this machine, RAM in its two parts, llama.cpp's dry run.</source>
      <translation>完整说明：规划做了什么、为什么，这台机器，内存的两部分，llama.cpp 试运行。</translation>
    </message>
  </context>
  <context>
    <name>PlanTargets</name>
    <message>
      <source>this computer</source>
      <translation>本机</translation>
    </message>
  </context>
  <context>
    <name>ProfileDialog</name>
    <message>
      <source>My PC</source>
      <translation>我的电脑</translation>
    </message>
    <message>
      <source>Add a machine to plan for</source>
      <translation>添加规划用的机器</translation>
    </message>
    <message>
      <source> GB</source>
      <translation> GB</translation>
    </message>
    <message>
      <source>Name</source>
      <translation>名称</translation>
    </message>
    <message>
      <source>GPU memory</source>
      <translation>显存</translation>
    </message>
    <message>
      <source>RAM</source>
      <translation>内存</translation>
    </message>
    <message>
      <source>Physical cores</source>
      <translation>物理核心</translation>
    </message>
    <message>
      <source>Custom</source>
      <translation>自定义</translation>
    </message>
  </context>
  <context>
    <name>PromptProgress</name>
    <message>
      <source>Reading the prompt…</source>
      <translation>正在读取提示词…</translation>
    </message>
    <message>
      <source>Writing…</source>
      <translation>正在生成…</translation>
    </message>
    <message>
      <source>Reading the prompt: %1% (%2 s left)</source>
      <translation>正在读取提示词：%1%（剩余 %2 秒）</translation>
    </message>
    <message>
      <source>Reading the prompt: %1%</source>
      <translation>正在读取提示词：%1%</translation>
    </message>
    <message>
      <source>Looking at image %1 of %2…</source>
      <translation>正在看第 %1 张图片（共 %2 张）…</translation>
    </message>
    <message>
      <source>Looking at the image…</source>
      <translation>正在看图片…</translation>
    </message>
  </context>
  <context>
    <name>RemoteMachineModel</name>
    <message>
      <source>in use</source>
      <translation>使用中</translation>
    </message>
    <message>
      <source>asking…</source>
      <translation>正在询问…</translation>
    </message>
    <message>
      <source>not reachable</source>
      <translation>无法连接</translation>
    </message>
    <message>
      <source>%1: %2 free of %3</source>
      <translation>%1：空闲 %2 / %3</translation>
    </message>
    <message>
      <source>%1 ms</source>
      <translation>%1 毫秒</translation>
    </message>
    <message>
      <source>Address</source>
      <translation>地址</translation>
    </message>
    <message>
      <source>State</source>
      <translation>状态</translation>
    </message>
    <message>
      <source>Devices</source>
      <translation>设备</translation>
    </message>
    <message>
      <source>Round trip</source>
      <translation>往返时间</translation>
    </message>
    <message>
      <source>The most the plan may use on each device of this machine (double-click to change; 0: what the worker reports as free). Set it when the worker may use less than its machine's free memory, or to keep room for other programs there.</source>
      <translation>计划在这台计算机的每个设备上最多可使用的内存（双击修改；0：按工作进程报告的空闲内存）。当工作进程实际可用的内存少于该计算机的空闲内存，或需要为那里的其他程序留出空间时，请设置此值。</translation>
    </message>
    <message>
      <source>what it reports</source>
      <translation>按其报告的空闲内存</translation>
    </message>
    <message>
      <source>Use at most</source>
      <translation>最多使用</translation>
    </message>
    <message>
      <source>added</source>
      <translation>已添加</translation>
    </message>
    <message>
      <source>answers; joining…</source>
      <translation>有应答；正在加入…</translation>
    </message>
  </context>
  <context>
    <name>RemoteMachinesDialog</name>
    <message>
      <source>Remote Machines</source>
      <translation>远程计算机</translation>
    </message>
    <message>
      <source>The worker's protocol has no password and no encryption: reach it through an SSH tunnel (then add 127.0.0.1:PORT), or only on a network you trust.</source>
      <translation>工作进程的协议没有密码也没有加密：请通过 SSH 隧道连接（然后添加 127.0.0.1:端口），或只在你信任的网络中使用。</translation>
    </message>
    <message>
      <source>host:port, for example 192.168.1.20:50052</source>
      <translation>主机:端口，例如 192.168.1.20:50052</translation>
    </message>
    <message>
      <source>Add</source>
      <translation>添加</translation>
    </message>
    <message>
      <source>Test Connection</source>
      <translation>测试连接</translation>
    </message>
    <message>
      <source>Remove</source>
      <translation>移除</translation>
    </message>
    <message>
      <source>Other computers can lend their GPUs (or their RAM) to this one: run &lt;code&gt;shoehorn-cli rpc-worker&lt;/code&gt; there and add its address here. Their devices appear in the plan and the gauges like a local GPU as soon as it answers (a model already loaded keeps its devices until it loads again). Double-click "Use at most" to give a machine a limit in MiB: auto-fit then splits the layers so that it stays within it.</source>
      <translation>其他计算机可以把它们的 GPU（或内存）借给这台计算机使用：在那台计算机上运行 &lt;code&gt;shoehorn-cli rpc-worker&lt;/code&gt;，然后在这里添加它的地址。它一有应答，其设备就会像本地 GPU 一样出现在计划和仪表中（已加载的模型在重新加载之前仍使用原来的设备）。双击“最多使用”可为一台计算机设置以 MiB 为单位的上限：自动适配会据此划分各层，使其不超出上限。</translation>
    </message>
    <message>
      <source>Give the machine as host:port, for example 192.168.1.20:50052 (the port its rpc-worker prints).</source>
      <translation>请以 主机:端口 的形式填写计算机，例如 192.168.1.20:50052（即其 rpc-worker 打印的端口）。</translation>
    </message>
    <message>
      <source>%1 is in the list already.</source>
      <translation>%1 已在列表中。</translation>
    </message>
  </context>
  <context>
    <name>SettingsForm</name>
    <message>
      <source>Lock</source>
      <translation>锁定</translation>
    </message>
    <message>
      <source>Auto-fit keeps a locked value as it is.</source>
      <translation>自动适配不会改动锁定的值。</translation>
    </message>
    <message>
      <source>GPU layers</source>
      <translation>GPU 层数</translation>
    </message>
    <message>
      <source>Experts on CPU</source>
      <translation>CPU 上的专家</translation>
    </message>
    <message>
      <source>Keep the expert weights of the first N layers in RAM (--n-cpu-moe).</source>
      <translation>把前 N 层的专家权重留在内存中（--n-cpu-moe）。</translation>
    </message>
    <message>
      <source>Context</source>
      <translation>上下文</translation>
    </message>
    <message>
      <source>K</source>
      <translation>K</translation>
    </message>
    <message>
      <source>V</source>
      <translation>V</translation>
    </message>
    <message>
      <source>KV cache</source>
      <translation>KV 缓存</translation>
    </message>
    <message>
      <source>q4_0 for K lowers answer quality noticeably; prefer q8_0.</source>
      <translation>K 使用 q4_0 会明显降低回答质量；建议用 q8_0。</translation>
    </message>
    <message>
      <source>auto</source>
      <translation>自动</translation>
    </message>
    <message>
      <source>on</source>
      <translation>开</translation>
    </message>
    <message>
      <source>off</source>
      <translation>关</translation>
    </message>
    <message>
      <source>CPU threads; auto: one per physical core (-t).</source>
      <translation>CPU 线程数；自动：每个物理核心一个（-t）。</translation>
    </message>
    <message>
      <source>Threads</source>
      <translation>线程</translation>
    </message>
    <message>
      <source>Flash attention</source>
      <translation>Flash Attention</translation>
    </message>
    <message>
      <source>micro-batch</source>
      <translation>微批</translation>
    </message>
    <message>
      <source>Batch</source>
      <translation>批大小</translation>
    </message>
    <message>
      <source>mmap</source>
      <translation>mmap</translation>
    </message>
    <message>
      <source>no mmap</source>
      <translation>不用 mmap</translation>
    </message>
    <message>
      <source>mlock</source>
      <translation>mlock</translation>
    </message>
    <message>
      <source>mmap maps the file (its pages count as RAM); no mmap reads it into memory; mlock keeps it from being swapped out.</source>
      <translation>mmap 映射文件（其页面计入内存）；不用 mmap 会把文件读入内存；mlock 防止被换出到交换分区。</translation>
    </message>
    <message>
      <source>Loading</source>
      <translation>加载方式</translation>
    </message>
    <message>
      <source>Speculative</source>
      <translation>推测解码</translation>
    </message>
    <message>
      <source>GPU backend</source>
      <translation>GPU 后端</translation>
    </message>
    <message numerus="yes">
      <source>More threads than the %n CPU thread(s) this computer runs at once: llama.cpp's threads take turns, and every token waits for the last of them (many times slower). Leave it on auto for one per core.</source>
      <translation>
        <numerusform>线程数超过了这台电脑可同时运行的 %n 个 CPU 线程：llama.cpp 的线程会轮流占用核心，每个 token 都要等最慢的那个线程（慢很多倍）。保持“自动”即可每个核心一个线程。</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>SpeculationPicker</name>
    <message>
      <source>Off</source>
      <translation>关闭</translation>
    </message>
    <message>
      <source>MTP (the model's own draft layer)</source>
      <translation>MTP（模型自带的草稿层）</translation>
    </message>
    <message>
      <source>n-gram (repeats in the chat)</source>
      <translation>n-gram（对话中的重复内容）</translation>
    </message>
    <message>
      <source>Draft model…</source>
      <translation>草稿模型…</translation>
    </message>
    <message>
      <source>Speculative decoding: guess several tokens ahead and let the model check them in one step. Faster where the guesses are often right; it costs memory and can be slower on a slow bus. The answer is the same.</source>
      <translation>推测解码：预先猜测几个 token，由模型一步验证。猜中率高时更快；它占用内存，在慢速总线上可能更慢。回答不变。</translation>
    </message>
    <message>
      <source>Draft model</source>
      <translation>草稿模型</translation>
    </message>
    <message>
      <source>GGUF models (*.gguf)</source>
      <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
      <source>This model file has no MTP layer (it was converted without it).</source>
      <translation>此模型文件没有 MTP 层（转换时未保留）。</translation>
    </message>
    <message>
      <source>Auto (as auto-tune measured)</source>
      <translation>自动（按自动调优的测量）</translation>
    </message>
    <message>
      <source>What Auto-tune speed… measured fastest on this computer: off until it has, and off where speculation was not faster than the run-to-run noise.</source>
      <translation>“自动调优速度…”在这台电脑上测得最快的选项：测量之前为关闭；若推测解码没有快过多次运行之间的波动，也为关闭。</translation>
    </message>
  </context>
  <context>
    <name>StatusStrip</name>
    <message>
      <source>context</source>
      <translation>上下文</translation>
    </message>
    <message>
      <source>Writing · %1 tok/s</source>
      <translation>正在生成 · %1 tok/s</translation>
    </message>
    <message>
      <source>The model is busy: auto-tune is running.</source>
      <translation>模型正忙：正在自动调优。</translation>
    </message>
    <message>
      <source>context %1 / %2</source>
      <translation>上下文 %1 / %2</translation>
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
      <source>Last answer: %1 tok/s</source>
      <translation>上次回答：%1 tok/s</translation>
    </message>
  </context>
  <context>
    <name>TuningDialog</name>
    <message>
      <source>Run auto-tune</source>
      <translation>开始自动调优</translation>
    </message>
    <message>
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <source>Apply best</source>
      <translation>应用最佳配置</translation>
    </message>
    <message>
      <source>Auto-tune</source>
      <translation>自动调优</translation>
    </message>
    <message>
      <source>Configuration</source>
      <translation>配置</translation>
    </message>
    <message>
      <source>Prompt t/s</source>
      <translation>提示词 t/s</translation>
    </message>
    <message>
      <source>Generation t/s</source>
      <translation>生成 t/s</translation>
    </message>
    <message>
      <source>Note</source>
      <translation>备注</translation>
    </message>
    <message>
      <source>Tokens per second per configuration</source>
      <translation>各配置的每秒 token 数</translation>
    </message>
    <message>
      <source>How each step adds up</source>
      <translation>每一步带来的提升</translation>
    </message>
    <message>
      <source>Step</source>
      <translation>步骤</translation>
    </message>
    <message>
      <source>Speed-up</source>
      <translation>加速比</translation>
    </message>
    <message>
      <source>Results from %1. Run again after changing hardware or drivers.</source>
      <translation>%1 的结果。更换硬件或驱动后请重新运行。</translation>
    </message>
    <message>
      <source>Auto-tune measures short runs of the configurations that fit and keeps the fastest. The model cannot chat meanwhile.</source>
      <translation>自动调优会对能放下的配置做简短测量并保留最快的。期间模型无法对话。</translation>
    </message>
    <message>
      <source>Measuring…</source>
      <translation>正在测量…</translation>
    </message>
    <message>
      <source>Measuring %1</source>
      <translation>正在测量 %1</translation>
    </message>
    <message>
      <source>Cancelled: showing what was measured.</source>
      <translation>已取消：显示已测得的结果。</translation>
    </message>
    <message numerus="yes">
      <source>Done: %n configuration(s) measured.</source>
      <translation>
        <numerusform>完成：共测量了 %n 个配置。</numerusform>
      </translation>
    </message>
    <message>
      <source>Baseline</source>
      <translation>基线</translation>
    </message>
    <message>
      <source>+ GPU layers</source>
      <translation>+ GPU 层</translation>
    </message>
    <message>
      <source>+ q8_0 KV cache</source>
      <translation>+ q8_0 KV 缓存</translation>
    </message>
    <message>
      <source>+ more layers (experts in RAM)</source>
      <translation>+ 更多层（专家放内存）</translation>
    </message>
    <message>
      <source>+ flash attention and threads</source>
      <translation>+ Flash Attention 与线程</translation>
    </message>
    <message>
      <source>prompt t/s</source>
      <translation>提示词 t/s</translation>
    </message>
    <message>
      <source>generation t/s</source>
      <translation>生成 t/s</translation>
    </message>
    <message>
      <source>best</source>
      <translation>最佳</translation>
    </message>
    <message>
      <source>current</source>
      <translation>当前</translation>
    </message>
    <message>
      <source>lower quality (q4_0 K)</source>
      <translation>质量较低（q4_0 K）</translation>
    </message>
    <message>
      <source>configuration (★ best, • current)</source>
      <translation>配置（★ 最佳，• 当前）</translation>
    </message>
    <message>
      <source>tokens/s</source>
      <translation>token/秒</translation>
    </message>
    <message>
      <source>Applied: %1</source>
      <translation>已应用：%1</translation>
    </message>
    <message>
      <source>does not fit: </source>
      <translation>放不下：</translation>
    </message>
    <message>
      <source>= the best found (Apply best)</source>
      <translation>= 找到的最佳配置（应用最佳配置）</translation>
    </message>
  </context>
  <context>
    <name>VisionMenu</name>
    <message>
      <source>&amp;Vision Projector</source>
      <translation>视觉投影(&amp;V)</translation>
    </message>
    <message>
      <source>Choose a Vision Projector</source>
      <translation>选择视觉投影</translation>
    </message>
    <message>
      <source>Vision projectors (mmproj*.gguf *.gguf)</source>
      <translation>视觉投影 (mmproj*.gguf *.gguf)</translation>
    </message>
    <message>
      <source>Load a model first</source>
      <translation>请先加载模型</translation>
    </message>
    <message>
      <source>Reads images with %1 (%2%3)</source>
      <translation>使用 %1 识别图片（%2%3）</translation>
    </message>
    <message>
      <source>, on the CPU</source>
      <translation>，在 CPU 上</translation>
    </message>
    <message>
      <source>%1 could not be loaded: %2</source>
      <translation>%1 无法加载：%2</translation>
    </message>
    <message>
      <source>This model reads no images</source>
      <translation>此模型不识别图片</translation>
    </message>
    <message>
      <source>Automatic: none beside the model</source>
      <translation>自动：模型旁边没有</translation>
    </message>
    <message>
      <source>Automatic: %1</source>
      <translation>自动：%1</translation>
    </message>
    <message>
      <source>None</source>
      <translation>不使用</translation>
    </message>
    <message>
      <source>Choose File…</source>
      <translation>选择文件…</translation>
    </message>
    <message>
      <source>Keep the Projector on the CPU</source>
      <translation>把视觉投影放在 CPU 上</translation>
    </message>
    <message>
      <source>Like llama-server's --no-mmproj-offload: saves GPU memory, encodes images more slowly</source>
      <translation>相当于 llama-server 的 --no-mmproj-offload：节省显存，但图片编码更慢</translation>
    </message>
    <message>
      <source>Automatic: none of the projectors beside the model fits it</source>
      <translation>自动：模型旁的投影器都不适用于它</translation>
    </message>
    <message>
      <source>%1: for another model</source>
      <translation>%1：属于其他模型</translation>
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
    <message>
      <source>Import a chat exported as JSON and open it.</source>
      <translation>导入以 JSON 导出的对话并打开。</translation>
    </message>
  </context>
</TS>
