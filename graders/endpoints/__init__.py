"""The endpoints graders call: where a grader may send requests and which environment variable may
hold its key (`policy`), and the OpenAI-compatible client with our own retries (`client`)."""
