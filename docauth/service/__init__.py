"""The HTTP service (Flask app factory, gunicorn in production), the review page and API keys.

    from docauth.service.app import create_app
    app = create_app(settings)
"""
